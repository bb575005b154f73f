// palace map: draws the graph embedded in #palace-map-data as SVG. Plain JavaScript, no
// library, nothing fetched. Text from the notes is only ever set with textContent.
(function () {
  "use strict";
  var started = performance.now();
  var SVG = "http://www.w3.org/2000/svg";
  var W = 1000, H = 700;
  var data = JSON.parse(document.getElementById("palace-map-data").textContent);
  var COLOURS = {PERSON: "#4e79a7", ORG: "#f28e2b", GPE: "#59a14f", LOC: "#59a14f", FAC: "#8cd17d",
                 DATE: "#9c755f", TIME: "#9c755f", CONCEPT: "#b07aa1", PRODUCT: "#edc948", EVENT: "#e15759",
                 WORK_OF_ART: "#ff9da7", NORP: "#76b7b2", LAW: "#86bcb6", VALUE: "#c4c9ce"};
  var OTHER_COLOUR = "#8c8c8c";
  var STATE_RANK = {current: 4, planned: 3, candidate: 2, superseded: 1, ended: 1};

  var factById = {}, nodeById = {}, edgeById = {};
  data.facts.forEach(function (f) { factById[f.id] = f; });
  data.nodes.forEach(function (n) { nodeById[n.id] = n; });
  data.edges.forEach(function (e) { edgeById[e.id] = e; });
  var factsOfNode = {};
  data.facts.forEach(function (f) {
    var ends = f.edge === null ? [f.node] : [edgeById[f.edge].source, edgeById[f.edge].target];
    ends.forEach(function (id) { (factsOfNode[id] = factsOfNode[id] || []).push(f); });
  });

  var state = {day: null, candidates: false, selected: null};
  var $ = function (id) { return document.getElementById(id); };
  var svg = $("graph"), viewport = $("viewport");

  function el(tag, attrs, parent, ns) {
    var node = ns ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (var k in attrs) { if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, attrs[k]); }
    if (parent) parent.appendChild(node);
    return node;
  }
  function text(tag, content, attrs, parent) {
    var node = el(tag, attrs || {}, parent);
    node.textContent = content;
    return node;
  }

  // -- days ---------------------------------------------------------------------------
  function dayNumber(iso) { return Math.round(Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / 864e5); }
  function isoDay(n) { return new Date(n * 864e5).toISOString().slice(0, 10); }
  var firstDay = dayNumber(data.first_day), lastDay = dayNumber(data.last_day);

  // Valid on a day, as `palace facts --as-of`: [valid_from, valid_to); an unknown start is
  // valid up to its end, unless the notes state the same value from a later day only
  // (begins); an undated fact a dated one contradicted is valid on no day.
  function validOn(f, day) {
    if (f.valid_from && f.valid_from.slice(0, 10) > day) return false;
    if (f.valid_to && f.valid_to.slice(0, 10) <= day) return false;
    if (!f.valid_from && !f.valid_to && f.superseded_by !== null) return false;
    if (!f.valid_from && f.begins && f.begins.slice(0, 10) > day) return false;
    return true;
  }
  function shown(f) { return f.state !== "candidate" || state.candidates; }
  function visibleFacts(edge) {
    var out = [];
    edge.facts.forEach(function (id) {
      var f = factById[id];
      if (shown(f) && (state.day === null || validOn(f, state.day))) out.push(f);
    });
    return out;
  }

  // -- drawing ------------------------------------------------------------------------
  function radius(n) { return Math.min(22, 4 + 2.6 * Math.sqrt(n.facts)); }
  function px(n) { return n.x * W; }
  function py(n) { return n.y * H; }
  var edgeEls = {}, labelEls = {}, nodeEls = {}, hitEls = {};

  function drawAll() {
    var edgesG = $("edges"), labelsG = $("edge-labels"), nodesG = $("nodes");
    data.edges.forEach(function (e) {
      var s = nodeById[e.source], t = nodeById[e.target];
      var dx = px(t) - px(s), dy = py(t) - py(s), len = Math.sqrt(dx * dx + dy * dy) || 1;
      var rs = radius(s) + 1, rt = radius(t) + 3;
      var line = el("line", {"class": "edge", "data-edge": e.id, "data-predicate": e.predicate,
                             "data-source": s.name, "data-target": t.name,
                             x1: (px(s) + dx * rs / len).toFixed(1), y1: (py(s) + dy * rs / len).toFixed(1),
                             x2: (px(t) - dx * rt / len).toFixed(1), y2: (py(t) - dy * rt / len).toFixed(1)}, edgesG, true);
      // a band 12 px wide along the line takes the clicks: a line 2 px wide is hard to hit
      var nx = -dy / len * 6, ny = dx / len * 6;
      var x1 = px(s) + dx * rs / len, y1 = py(s) + dy * rs / len, x2 = px(t) - dx * rt / len, y2 = py(t) - dy * rt / len;
      var hit = el("polygon", {"class": "hit", "data-edge": e.id, "data-source": s.name, "data-predicate": e.predicate,
                               "data-target": t.name, points: [[x1 + nx, y1 + ny], [x2 + nx, y2 + ny], [x2 - nx, y2 - ny],
                               [x1 - nx, y1 - ny]].map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" ")},
                   edgesG, true);
      el("title", {}, hit, true).textContent = s.name + " " + e.predicate.replace(/_/g, " ") + " " + t.name;
      hit.addEventListener("click", function (ev) { ev.stopPropagation(); selectEdge(e.id); });
      edgeEls[e.id] = line;
      hitEls[e.id] = hit;
      var label = el("text", {"class": "edge-label", x: ((px(s) + px(t)) / 2).toFixed(1),
                              y: ((py(s) + py(t)) / 2 - 3).toFixed(1), "text-anchor": "middle"}, labelsG, true);
      label.textContent = e.predicate.replace(/_/g, " ");
      labelEls[e.id] = label;
    });
    data.nodes.forEach(function (n) {
      var g = el("g", {"class": "node" + (n.type === "VALUE" ? " value" : "") + (n.named ? " named" : ""),
                       "data-id": n.id, "data-name": n.name, "data-type": n.type,
                       transform: "translate(" + px(n).toFixed(1) + "," + py(n).toFixed(1) + ")"}, nodesG, true);
      el("circle", {r: radius(n).toFixed(1), fill: COLOURS[n.type] || OTHER_COLOUR}, g, true);
      var label = el("text", {x: (radius(n) + 3).toFixed(1), y: "4"}, g, true);
      label.textContent = n.name;
      var title = el("title", {}, g, true);
      title.textContent = n.name + " (" + n.type + ")";
      g.addEventListener("click", function (ev) { ev.stopPropagation(); selectNode(n.id); });
      nodeEls[n.id] = g;
    });
    if (data.edges.length > 120) svg.classList.add("many");
  }

  // Show what is valid on the chosen day (or every fact, over all time): an edge is
  // drawn when one of its facts is; solid when one of those is current, dotted when
  // planned, dashed when they were since superseded or ended.
  function redraw() {
    var t0 = performance.now();
    var active = {};
    data.edges.forEach(function (e) {
      var facts = visibleFacts(e), line = edgeEls[e.id], best = null;
      facts.forEach(function (f) { if (best === null || STATE_RANK[f.state] > STATE_RANK[best]) best = f.state; });
      var cls = best === null ? "hidden" : best === "current" ? "current" : best === "planned" ? "planned"
              : best === "candidate" ? "candidate" : "past";
      line.setAttribute("class", "edge " + cls + (state.selected === "edge:" + e.id ? " selected" : ""));
      line.setAttribute("data-state", best === null ? "hidden" : cls);
      labelEls[e.id].setAttribute("class", "edge-label" + (best === null ? " hidden" : ""));
      hitEls[e.id].setAttribute("class", "hit" + (best === null ? " hidden" : ""));
      if (best !== null) { active[e.source] = true; active[e.target] = true; }
    });
    data.facts.forEach(function (f) {
      if (f.edge === null && shown(f) && (state.day === null || validOn(f, state.day))) active[f.node] = true;
    });
    data.nodes.forEach(function (n) {
      var g = nodeEls[n.id], cls = g.getAttribute("class").replace(/ idle/g, "");
      g.setAttribute("class", cls + (state.day !== null && !active[n.id] ? " idle" : ""));
    });
    $("day-label").textContent = state.day === null ? "all time (every fact drawn)" : "valid on " + state.day;
    $("all-time").setAttribute("aria-pressed", state.day === null ? "true" : "false");
    if (state.selected) showSelection();
    return performance.now() - t0;
  }

  // -- the panel ----------------------------------------------------------------------
  function factItem(f, parent) {
    var item = el("div", {"class": "fact" + (state.day !== null && !validOn(f, state.day) ? " invalid-now" : ""),
                          "data-fact": f.id}, parent);
    var what = text("div", f.subject + " " + f.predicate.replace(/_/g, " ") + " " + (f.object || "(whatever held)"),
                    {"class": "what"}, item);
    text("span", f.state, {"class": "state " + f.state}, what);
    var valid = "valid " + (f.valid_from ? f.valid_from : "from an unknown start") + " → " +
                (f.valid_to ? f.valid_to : (f.kind === "event" ? "" : "open"));
    if (f.replaced_by) valid += " (then " + f.replaced_by + ")";
    text("div", valid, {"class": "valid"}, item);
    text("div", "recorded " + f.recorded_at + " · evidence " + f.evidence, {"class": "recorded"}, item);
    text("div", "“" + f.sentence + "”", {"class": "sentence"}, item);
    text("div", f.wing + " · " + f.path + (f.line ? ":" + f.line : ""), {"class": "cite"}, item);
  }
  function sortByValid(facts) {
    return facts.slice().sort(function (a, b) {
      return (a.valid_from || "").localeCompare(b.valid_from || "") || a.id - b.id;
    });
  }
  function showSelection() {
    var panel = $("panel");
    panel.textContent = "";
    var facts, title, meta;
    if (state.selected.indexOf("node:") === 0) {
      var n = nodeById[state.selected.slice(5)];
      title = n.name;
      meta = n.type + (n.type === "VALUE" ? "" : " · " + n.mentions + " mentions") +
             (n.aliases.length ? " · also " + n.aliases.join(", ") : "");
      facts = factsOfNode[n.id] || [];
    } else {
      var e = edgeById[+state.selected.slice(5)];
      title = nodeById[e.source].name + " " + e.predicate.replace(/_/g, " ") + " " + nodeById[e.target].name;
      meta = e.facts.length + (e.facts.length === 1 ? " statement" : " statements");
      facts = e.facts.map(function (id) { return factById[id]; });
    }
    text("h3", title, {}, panel);
    text("p", meta, {"class": "meta"}, panel);
    sortByValid(facts.filter(shown)).forEach(function (f) { factItem(f, panel); });
  }
  function clearMarks() {
    Object.keys(nodeEls).forEach(function (id) { nodeEls[id].classList.remove("selected"); });
    Object.keys(edgeEls).forEach(function (id) { edgeEls[id].classList.remove("selected"); });
  }
  function selectNode(id) {
    clearMarks();
    state.selected = "node:" + id;
    nodeEls[id].classList.add("selected");
    showSelection();
  }
  function selectEdge(id) {
    clearMarks();
    state.selected = "edge:" + id;
    edgeEls[id].classList.add("selected");
    showSelection();
  }

  // -- the slider, the toggles, the search, the timeline ---------------------------------
  function setDay(iso) {
    state.day = iso;
    if (iso !== null) $("day").value = String(dayNumber(iso) - firstDay);
    return redraw();
  }
  function setupControls() {
    var slider = $("day");
    slider.max = String(Math.max(0, lastDay - firstDay));
    slider.value = slider.max;
    slider.addEventListener("input", function () {
      var t = setDay(isoDay(firstDay + (+slider.value)));
      window.palaceMap.timings.lastSlider = t;
    });
    $("all-time").addEventListener("click", function () { setDay(null); });
    $("labels").addEventListener("change", function () { svg.classList.toggle("no-labels", !this.checked); });
    if (data.candidates) {
      $("candidates-toggle").hidden = false;
      $("candidates").addEventListener("change", function () { state.candidates = this.checked; redraw(); });
    }
    $("search").addEventListener("input", function () { search(this.value); });
    svg.addEventListener("click", function () { clearMarks(); state.selected = null; });
  }
  function search(query) {
    var q = query.trim().toLowerCase(), found = 0, first = null, out = $("search-result");
    data.nodes.forEach(function (n) {
      var hit = q.length > 0 && (n.name.toLowerCase().indexOf(q) >= 0 ||
                n.aliases.some(function (a) { return a.toLowerCase().indexOf(q) >= 0; }));
      nodeEls[n.id].classList.toggle("match", hit);
      if (hit) { found += 1; if (first === null) first = n.id; }
    });
    out.textContent = "";
    if (!q) return;
    if (found) { out.textContent = found + " on the map"; if (found === 1) selectNode(first); return; }
    var others = data.others.filter(function (name) { return name.toLowerCase().indexOf(q) >= 0; }).slice(0, 5);
    if (!others.length) { out.textContent = "no such name on this map"; return; }
    out.appendChild(document.createTextNode("not drawn here: "));
    others.forEach(function (name, i) {
      if (i) out.appendChild(document.createTextNode(", "));
      if (data.served) {
        var params = new URLSearchParams(location.search);
        params.set("names", name);
        text("a", name, {href: "?" + params.toString()}, out);
      } else {
        text("code", "palace map \"" + name + "\"", {}, out);
      }
    });
  }
  function timeline() {
    var list = $("timeline");
    $("timeline-count").textContent = "(" + data.changes.length +
      (data.changes_total > data.changes.length ? " latest of " + data.changes_total : "") +
      (data.since || data.until ? ", " + (data.since || "…") + " to " + (data.until || "…") : ", all time") + ")";
    data.changes.forEach(function (c) {
      var item = el("li", {"data-day": c.day, "data-kind": c.kind, "data-fact": c.fact}, list);
      text("span", c.day, {"class": "day"}, item);
      text("span", c.kind, {"class": "kind"}, item);
      item.appendChild(document.createTextNode(c.text));
      item.addEventListener("click", function () {
        Array.prototype.forEach.call(list.children, function (li) { li.classList.remove("active"); });
        item.classList.add("active");
        setDay(c.day);
        if (c.edge !== null) selectEdge(c.edge);
        else selectNode(factById[c.fact].node);
      });
    });
  }
  function summary() {
    var parts = [data.entities_shown + " of " + data.entities_total + " entities",
                 data.edges.length + " edges", data.facts.length + " facts"];
    if (data.names.length) parts.push("around " + data.names.join(", "));
    if (data.wing) parts.push("wing " + data.wing);
    if (data.private_left_out.length) parts.push("private wings left out: " + data.private_left_out.join(", "));
    if (data.since || data.until) parts.push("valid " + (data.since || "…") + " to " + (data.until || "…"));
    $("summary").textContent = parts.join(" · ");
  }
  function legend() {
    var box = $("legend"), types = {};
    data.nodes.forEach(function (n) { types[n.type] = true; });
    Object.keys(types).sort().forEach(function (type) {
      var item = el("span", {}, box);
      var dot = el("svg", {width: 10, height: 10}, item, true);
      el("circle", {cx: 5, cy: 5, r: 5, fill: COLOURS[type] || OTHER_COLOUR}, dot, true);
      item.appendChild(document.createTextNode(type.toLowerCase()));
    });
    [["current", "current"], ["past", "superseded or ended"], ["planned", "planned"]].concat(
      data.candidates ? [["candidate", "candidate (not yet reviewed)"]] : []).forEach(function (pair) {
      var item = el("span", {}, box);
      var s = el("svg", {width: 28, height: 10}, item, true);
      el("line", {x1: 0, y1: 5, x2: 28, y2: 5, "class": "edge sample " + pair[0]}, s, true);
      item.appendChild(document.createTextNode(pair[1]));
    });
    text("span", "Size: facts that name it. Moving the slider shows the facts valid on that day, as " +
         "`palace facts --as-of` does: a fact whose start is unknown counts as valid up to its end. " +
         "Candidates, rejected and retracted facts are left out" +
         (data.candidates ? " (candidates behind the toggle)" : "") + ". Made " + data.generated_at +
         " from " + data.palace + ".", {"class": "note"}, box);
  }

  // -- zoom and pan -------------------------------------------------------------------
  function setupZoom() {
    var view = {x: 0, y: 0, w: W, h: H}, drag = null;
    function apply() { svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].map(function (v) { return v.toFixed(1); }).join(" ")); }
    svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var rect = svg.getBoundingClientRect(), k = ev.deltaY < 0 ? 0.85 : 1 / 0.85;
      var mx = view.x + view.w * (ev.clientX - rect.left) / rect.width;
      var my = view.y + view.h * (ev.clientY - rect.top) / rect.height;
      view.w *= k; view.h *= k; view.x = mx - (mx - view.x) * k; view.y = my - (my - view.y) * k;
      apply();
    }, {passive: false});
    svg.addEventListener("mousedown", function (ev) { drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y}; });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var rect = svg.getBoundingClientRect();
      view.x = drag.vx - (ev.clientX - drag.x) * view.w / rect.width;
      view.y = drag.vy - (ev.clientY - drag.y) * view.h / rect.height;
      svg.classList.add("dragging");
      apply();
    });
    window.addEventListener("mouseup", function () { drag = null; svg.classList.remove("dragging"); });
  }

  window.palaceMap = {timings: {}, validOn: function (day) {
    return data.facts.filter(function (f) { return shown(f) && validOn(f, day); }).map(function (f) { return f.id; });
  }, setDay: setDay, data: data};
  drawAll();
  setupControls();
  setupZoom();
  summary();
  legend();
  timeline();
  redraw();
  window.palaceMap.timings.firstDraw = performance.now() - started;
  window.palaceMap.timings.sinceNavigation = performance.now();
  document.body.setAttribute("data-ready", "true");
})();
