/* gradtrace view: replays the timeline over the graph's SVG.
 *
 * Everything shown comes from the JSON in #gradtrace-data, made by gradtrace at build
 * time: the trace (the `run --json` document of the shown part of the run), the
 * timeline's positions (what each forward op and backward step changes in the drawing,
 * with the texts), explain's narration, and the ids of the SVG's boxes (v-…) and
 * arrows (l-…). The SVG is drawn as the run ended; this script winds it back to the
 * position of the slider. No network, no dependencies.
 */
(function () {
  "use strict";

  const data = JSON.parse(document.getElementById("gradtrace-data").textContent);
  const ui = data.ui;
  const positions = data.timeline;
  const trace = data.trace;
  const GRAD_FILL = "#b0306a";
  const $ = (id) => document.getElementById(id);
  const svg = document.querySelector("#graph svg");

  function format(template, fields) {
    return template.replace(/\{(\w+)\}/g, (m, key) => (key in fields ? String(fields[key]) : m));
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svgEl(tag, attrs) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    return node;
  }

  // -- the SVG's parts ------------------------------------------------------------------

  const vertexIds = Object.keys(data.vertices);
  const vertexEl = {};
  const vertexTexts = {};
  for (const id of vertexIds) {
    const g = document.getElementById("v-" + id);
    if (!g) continue;
    vertexEl[id] = g;
    vertexTexts[id] = Array.from(g.querySelectorAll("text"));
    const lines = vertexTexts[id].map((t) => t.textContent);
    data.vertices[id].lines = lines;
  }
  const linkEl = data.links.map((_, k) => document.getElementById("l-" + k));
  const linkGrad = linkEl.map((g) => {
    if (!g) return null;
    const texts = Array.from(g.querySelectorAll("text")).filter(
      (t) => (t.getAttribute("fill") || "").toLowerCase() === GRAD_FILL);
    texts.forEach((t) => t.classList.add("gradtext"));
    return texts.length ? texts[texts.length - 1] : null;
  });
  const badges = svgEl("g", { id: "badges" });
  (svg.querySelector("g.graph") || svg).appendChild(badges);

  // -- the trace's entries, by id ---------------------------------------------------------

  const nodeById = new Map(trace.nodes.map((n) => [n.id, n]));
  const tensorById = new Map(trace.tensors.map((t) => [t.id, t]));

  // -- modules: collapsible groups (clusters m-… of the SVG) --------------------------------

  const modules = data.modules || {};
  const collapsed = new Set();
  function insideCollapsed(id) {
    const path = data.vertices[id] && data.vertices[id].module;
    if (!path) return null;
    for (const name of collapsed) {
      if (path === name || path.startsWith(name + ".")) return name;
    }
    return null;
  }
  for (const [clusterId, name] of Object.entries(modules)) {
    const g = document.getElementById(clusterId);
    if (!g) continue;
    const label = g.querySelector("text");
    const toggle = () => {
      if (collapsed.has(name)) collapsed.delete(name); else collapsed.add(name);
      g.classList.toggle("collapsed", collapsed.has(name));
      if (label) label.setAttribute("data-state", collapsed.has(name) ? ui.expand : ui.collapse);
      show(current);
    };
    (label || g).addEventListener("click", (event) => { event.stopPropagation(); toggle(); });
    g.setAttribute("data-module", name);
  }

  // -- the page around the graph ------------------------------------------------------------

  $("heading").textContent = data.title;
  $("arrows").textContent = data.arrows;
  $("notes").textContent = data.notes.join(" · ");
  $("source-title").textContent = ui.source;
  $("source-title").appendChild(el("span", { class: "script" }, data.script));
  for (const entry of data.legend) {
    const item = el("span", { class: "legend-item", "data-kind": entry.kind });
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = entry.fill;
    swatch.style.border = "1px " + (entry.dashed ? "dashed " : "solid ") + entry.stroke;
    if (entry.round) swatch.style.borderRadius = "5px";
    if (entry.kind === "none") swatch.textContent = "None";
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(entry.text));
    $("legend").appendChild(item);
  }
  $("step-title-label").textContent = ui.step;
  $("narration-label").textContent = ui.narration;
  $("facts-label").textContent = ui.facts;
  $("facts-title").textContent = ui["facts.hint"];
  $("prev").textContent = ui.prev;
  $("next").textContent = ui.next;
  $("keys").textContent = ui.keys;
  $("zoom-in").title = ui.zoom_in;
  $("zoom-out").title = ui.zoom_out;
  $("zoom-fit").textContent = ui.fit;
  const layoutNote = $("layout-note");
  layoutNote.textContent = data.layout_note;
  if (data.layout === "builtin") layoutNote.classList.add("warn");

  const inRange = new Set(positions.map((p) => p.line).filter((l) => l));
  const sourceLines = data.source.map((text, i) => {
    const line = el("div", { class: "line", "data-line": String(i + 1) });
    line.appendChild(el("span", { class: "num" }, String(i + 1)));
    line.appendChild(el("span", { class: "code" }, text || " "));
    if (!inRange.has(i + 1)) line.classList.add("outside");
    line.addEventListener("click", () => {
      const at = positions.findIndex((p) => p.line === i + 1);
      if (at >= 0) show(at);
    });
    $("source").appendChild(line);
    return line;
  });

  // -- zoom -------------------------------------------------------------------------------

  const box = svg.viewBox.baseVal;
  const base = svg.querySelector("g.graph > polygon");  // Graphviz's white background
  box.y -= 14;  // room for a badge above the top row
  box.height += 14;
  if (base) base.setAttribute("fill", "transparent");
  let scale = 1;
  function zoom(to) {
    scale = Math.max(0.1, Math.min(4, to));
    svg.setAttribute("width", (box.width * scale).toFixed(1) + "pt");
    svg.setAttribute("height", (box.height * scale).toFixed(1) + "pt");
  }
  function fit() {
    const pane = $("graph");
    const pt = 4 / 3;  // CSS pixels per point
    const wide = (pane.clientWidth - 20) / (box.width * pt);
    const tall = (pane.clientHeight - 20) / (box.height * pt);
    zoom(Math.min(wide, tall, 1.6));
  }
  $("zoom-in").addEventListener("click", () => zoom(scale * 1.25));
  $("zoom-out").addEventListener("click", () => zoom(scale / 1.25));
  $("zoom-fit").addEventListener("click", fit);

  // -- the state at a position: replay positions 0..p -----------------------------------------

  function stateAt(p) {
    const state = { freed: new Set(), stale: {}, grads: {}, links: {}, values: {} };
    for (let i = 0; i <= p; i++) {
      const q = positions[i];
      q.freed.forEach((v) => state.freed.add(v));
      q.stale.forEach(([v, how]) => { state.stale[v] = how; });
      q.grads.forEach(([v, text]) => { state.grads[v] = text; });
      q.values.forEach(([v, text]) => { state.values[v] = text; });
      q.links.forEach(([k, text]) => { state.links[k] = text; });
    }
    return state;
  }

  function visible(id, event) {
    const facts = data.vertices[id];
    return facts && facts.born <= event;
  }

  const stacked = {};  // vertex id -> badges already beside it

  function overlaps(a, b) {
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height &&
      b.y < a.y + a.height;
  }

  function addBadge(id, text, kind) {
    const g = vertexEl[id];
    if (!g || !text) return;
    const bbox = g.getBBox();
    const badge = svgEl("g", { class: "badge" + (kind ? " " + kind : "") });
    const label = svgEl("text", {});
    label.textContent = text;
    const rect = svgEl("rect", { rx: 5 });
    badge.appendChild(rect);
    badge.appendChild(label);
    badges.appendChild(badge);
    const size = label.getBBox();
    const w = size.width + 10;
    const h = size.height + 6;
    const row = stacked[id] = (stacked[id] || 0) + 1;
    const shift = (row - 1) * (h + 3);
    // beside the box where nothing else is drawn: right, left, below, above
    const spots = [[bbox.x + bbox.width + 8, bbox.y + shift],
                   [bbox.x - 8 - w, bbox.y + shift],
                   [bbox.x + bbox.width / 2 - w / 2, bbox.y + bbox.height + 6 + shift],
                   [bbox.x + bbox.width / 2 - w / 2, bbox.y - 6 - h - shift]];
    const others = [];
    for (const [other, el] of Object.entries(vertexEl)) {
      if (other !== id && !el.classList.contains("unborn")) others.push(el.getBBox());
    }
    Array.from(badges.children).forEach((b) => { if (b !== badge) others.push(b.getBBox()); });
    // the visible area in the coordinates of the graph's group (Graphviz translates it)
    const layer = badges.parentNode.transform ? badges.parentNode.transform.baseVal : null;
    const matrix = layer && layer.numberOfItems ? layer.consolidate().matrix : { e: 0, f: 0 };
    const area = { x: box.x - matrix.e, y: box.y - matrix.f, width: box.width,
                   height: box.height };
    const inside = ([x, y]) => x >= area.x && y >= area.y && x + w <= area.x + area.width &&
      y + h <= area.y + area.height;
    const free = spots.find((spot) => inside(spot) && !others.some(
      (o) => overlaps({ x: spot[0], y: spot[1], width: w, height: h }, o)));
    const [x, y] = free || spots.find(inside) || spots[0];
    rect.setAttribute("x", x);
    rect.setAttribute("y", y);
    rect.setAttribute("width", w);
    rect.setAttribute("height", h);
    label.setAttribute("x", x + 5);
    label.setAttribute("y", y + 3 - size.y);  // the text's top is size.y above its baseline
  }

  function drawGraph(p) {
    const q = positions[p];
    const before = p > 0 ? positions[p - 1].event : -Infinity;
    const state = stateAt(p);
    for (const id of vertexIds) {
      const g = vertexEl[id];
      if (!g) continue;
      const facts = data.vertices[id];
      const shown = visible(id, q.event);
      g.classList.toggle("unborn", !shown);
      g.classList.toggle("in-collapsed", shown && insideCollapsed(id) !== null);
      g.classList.toggle("new", shown && facts.born > before && facts.born >= 0 &&
                         q.kind !== "start" && id !== q.focus);
      g.classList.toggle("focus", id === q.focus);
      if (facts.kind === "op") {
        g.classList.toggle("gone", state.freed.has(id));
        g.classList.toggle("alive", !state.freed.has(id));
      } else if (facts.kind === "saved") {
        const how = state.stale[id] || "";
        g.classList.toggle("fresh", !how && !!facts.state);
        g.classList.toggle("modified", how === "modified");
        g.classList.toggle("silent", how === "silent");
        g.classList.toggle("gone", state.freed.has(id));
        if (facts.fresh) {
          const texts = vertexTexts[id];
          const lines = how ? facts.lines : facts.fresh;
          texts.forEach((t, i) => { t.textContent = lines[i] !== undefined ? lines[i] : ""; });
        }
      }
      if (facts.kind === "leaf" || facts.kind === "output") {
        const texts = vertexTexts[id];
        if (texts.length > 1) texts[1].textContent = state.values[id] || facts.lines[1];
        if (facts.kind === "leaf" && texts.length > 2) {
          texts[texts.length - 1].textContent = state.grads[id] || facts.grad;
        }
      }
    }
    const now = new Map(q.links.map(([k, text]) => [k, text]));
    data.links.forEach((link, k) => {
      const g = linkEl[k];
      if (!g) return;
      const shown = visible(link.source, q.event) && visible(link.target, q.event);
      const folded = insideCollapsed(link.source);
      g.classList.toggle("unborn", !shown);
      g.classList.toggle("in-collapsed", shown && folded !== null &&
                         folded === insideCollapsed(link.target));
      g.classList.toggle("current", now.has(k));
      g.classList.toggle("done", !now.has(k) && k in state.links);
      if (linkGrad[k] && k in state.links) linkGrad[k].textContent = state.links[k];
    });
    while (badges.firstChild) badges.removeChild(badges.firstChild);
    for (const id of Object.keys(stacked)) delete stacked[id];
    q.badges.forEach(([id, text]) => addBadge(id, text));
    if (q.focus && q.freed.indexOf(q.focus) >= 0) addBadge(q.focus, ui.freed, "freed");
    if (q.focus && vertexEl[q.focus]) scrollIntoGraph(vertexEl[q.focus]);
  }

  function scrollIntoGraph(g) {
    const pane = $("graph");
    const r = g.getBoundingClientRect();
    const view = pane.getBoundingClientRect();
    if (r.top < view.top || r.bottom > view.bottom || r.left < view.left ||
        r.right > view.right) {
      pane.scrollTop += r.top - view.top - view.height / 2 + r.height / 2;
      pane.scrollLeft += r.left - view.left - view.width / 2 + r.width / 2;
    }
  }

  // -- the side panes ------------------------------------------------------------------------

  function drawSource(q) {
    sourceLines.forEach((line) => line.classList.remove("current", "backward", "failed"));
    if (q.line && sourceLines[q.line - 1]) {
      const line = sourceLines[q.line - 1];
      line.classList.add("current");
      if (q.kind === "step" || q.kind === "backward") line.classList.add("backward");
      if (q.kind === "failed" || q.kind === "error" || q.kind === "caught") {
        line.classList.add("failed");
      }
      const pane = $("source-pane");
      const top = line.offsetTop - pane.offsetTop;
      if (top < pane.scrollTop || top > pane.scrollTop + pane.clientHeight - 30) {
        pane.scrollTop = top - pane.clientHeight / 3;
      }
    }
  }

  function drawStep(q) {
    $("step-title").textContent = q.title;
    const facts = $("step-facts");
    facts.textContent = "";
    q.facts.forEach((text) => facts.appendChild(el("li", {}, text)));
    const error = $("step-error");
    error.hidden = !q.error;
    error.textContent = q.error || "";
  }

  function drawNarration(q) {
    const box = $("narration");
    box.textContent = "";
    if (q.section === undefined || q.section === null) {
      box.appendChild(el("div", { class: "before" }, ui.no_narration));
      return;
    }
    const section = data.narration[q.section];
    if (q.told_before) box.appendChild(el("div", { class: "before" }, ui.told_before));
    box.appendChild(el("div", { class: "section-title" }, section.title));
    if (section.source) box.appendChild(el("div", { class: "section-source" }, section.source));
    const now = new Set(q.narration.filter(([s]) => s === q.section).map(([, i]) => i));
    let first = null;
    section.steps.forEach((step, i) => {
      const para = el("p", { class: step.tone + (now.has(i) ? " now" : "") }, step.text);
      if (now.has(i) && first === null) first = para;
      box.appendChild(para);
    });
    if (first) {
      const pane = $("side-pane");
      const top = first.offsetTop - pane.offsetTop;
      if (top < pane.scrollTop || top > pane.scrollTop + pane.clientHeight - 40) {
        first.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // -- facts of a clicked box: its entries of the trace document -------------------------------

  function pretty(value, indent) {
    indent = indent || "";
    const flat = JSON.stringify(value);
    if (flat === undefined) return "null";
    if (flat.length <= 72 || value === null || typeof value !== "object") return flat;
    const inner = indent + "  ";
    if (Array.isArray(value)) {
      return "[\n" + value.map((v) => inner + pretty(v, inner)).join(",\n") + "\n" + indent + "]";
    }
    return "{\n" + Object.entries(value).map(
      ([k, v]) => inner + JSON.stringify(k) + ": " + pretty(v, inner)).join(",\n") +
      "\n" + indent + "}";
  }

  function showFacts(id) {
    const facts = data.vertices[id];
    const parts = {};
    let title = (facts.lines || [id])[0];
    if (facts.kind === "saved") {
      const node = nodeById.get(facts.node);
      const saved = node ? node.saved.find((s) => s.name === facts.saved_name) : null;
      title = (node ? node.name + " #" + node.id + " · " : "") + "_saved_" + facts.saved_name;
      parts.saved = saved;
      if (facts.tensor !== undefined) parts.tensor = tensorById.get(facts.tensor);
    } else if (facts.kind === "op" || facts.kind === "accumulate") {
      parts.node = nodeById.get(facts.node);
    } else if (facts.kind === "output" || facts.kind === "leaf") {
      parts.tensor = tensorById.get(facts.tensor);
    } else if (facts.node !== undefined) {
      parts.node = nodeById.get(facts.node);
    }
    const only = Object.keys(parts).length === 1 ? parts[Object.keys(parts)[0]] : parts;
    $("facts-title").textContent = title;
    $("facts").textContent = pretty(only === undefined ? null : only);
    for (const other of Object.values(vertexEl)) other.classList.remove("selected");
    if (vertexEl[id]) vertexEl[id].classList.add("selected");
  }
  for (const id of vertexIds) {
    if (vertexEl[id]) vertexEl[id].addEventListener("click", () => showFacts(id));
  }

  // -- moving along the timeline -----------------------------------------------------------

  let current = 0;
  const slider = $("slider");
  slider.max = String(positions.length - 1);

  function show(p) {
    current = Math.max(0, Math.min(positions.length - 1, p));
    const q = positions[current];
    slider.value = String(current);
    $("counter").textContent = format(ui.position, { n: current + 1, total: positions.length });
    $("prev").disabled = $("first").disabled = current === 0;
    $("next").disabled = $("last").disabled = current === positions.length - 1;
    document.body.setAttribute("data-position", String(current));
    document.body.setAttribute("data-kind", q.kind);
    drawGraph(current);
    drawSource(q);
    drawStep(q);
    drawNarration(q);
  }

  slider.addEventListener("input", () => show(Number(slider.value)));
  $("prev").addEventListener("click", () => show(current - 1));
  $("next").addEventListener("click", () => show(current + 1));
  $("first").addEventListener("click", () => show(0));
  $("last").addEventListener("click", () => show(positions.length - 1));
  document.addEventListener("keydown", (event) => {
    if (event.target && event.target.tagName === "INPUT" && event.target !== slider) return;
    const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0,
                    End: positions.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });

  window.gradtrace = { data: data, show: show, position: () => current };
  fit();
  show(0);
})();
