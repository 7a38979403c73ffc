"""train_mlp.gt written by hand in numpy: the forward and backward passes computed
directly, no graph, no autograd, float32 like torch. The floor for any numpy engine."""
import numpy as np

f32 = np.float32
N = 512
D = 32
H = 128
lr = f32(0.1)
k = np.arange(N * D, dtype=f32).reshape(N, D)
X = np.sin(k * f32(0.37) + np.cos(k * f32(0.91)) * f32(3.0))
T = np.cos(np.arange(D, dtype=f32).reshape(D, 1) * f32(0.53)) * f32(0.3)
Y = np.sin(X @ T)
W1 = np.cos(np.arange(D * H, dtype=f32).reshape(D, H) * f32(0.71)) * f32(0.25)
b1 = np.sin(np.arange(H, dtype=f32) * f32(0.13)) * f32(0.1)
W2 = np.cos(np.arange(H, dtype=f32).reshape(H, 1) * f32(0.29)) * f32(0.15)
b2 = np.zeros(1, dtype=f32)
scale = f32(2.0 / (N * 1))  # d mean((out - Y) ** 2) / d out = 2 (out - Y) / numel
first = None
for step in range(200):
    # forward
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    diff = out - Y
    loss = (diff * diff).mean()
    # backward
    dout = diff * scale
    dW2 = h.T @ dout
    db2 = dout.sum(axis=0)
    dz1 = (dout @ W2.T) * (f32(1.0) - h * h)
    dW1 = X.T @ dz1
    db1 = dz1.sum(axis=0)
    # SGD step, in place
    W1 -= lr * dW1
    b1 -= lr * db1
    W2 -= lr * dW2
    b2 -= lr * db2
    if step == 0:
        first = float(loss)
print(f"first loss {first:.6f}, final loss {float(loss):.6f}")
