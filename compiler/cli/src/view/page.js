// btvm view: draws the tree in #btvm-data as an indented outline in <svg id="tree"> and, with
// a scenario, steps through its timeline. The contract is spec/viewer.md. No library, no
// network; layout happens at load and on collapse/expand only, and choosing a tick touches
// only the nodes whose marks change.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('btvm-data').textContent);
  var nodes = data.nodes;
  var svg = document.getElementById('tree');
  var NS = svg.namespaceURI;
  var ROW = 24, INDENT = 22, CH = 7.25, MAX_ROWS = 20000, MAX_TEXT = 96;
  var roots = [];            // top-level drawn items
  var copies = [];           // node id -> its drawn <g> elements
  var itemOf = new Map();    // <g> -> drawn item
  var rows = 0;              // drawn items so far
  var curStatus = {}, curActive = {}, current = -1;
  var timeline = data.timeline;
  var ticks = timeline ? timeline.ticks : [];
  var tickEl, slider, callsEl, pathEl, nowEl;

  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function html(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function cut(s) {
    return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT - 1) + '\u2026' : s;
  }

  // One drawn row for node `id` under `parent` (null at the top level).
  function makeItem(id, parent) {
    var n = nodes[id];
    var it = { id: id, parent: parent, depth: parent ? parent.depth + 1 : 0, kids: [],
               collapsed: false, y: -1, dy: null, g: null, link: null, sign: null };
    var g = el('g', { 'class': 'node', 'data-node': String(id) });
    it.g = g;
    if (parent) it.link = el('path', { 'class': 'link' }, g);
    if (n.children.length) {
      var t = el('g', { 'class': 'toggle' }, g);
      el('rect', { x: 0, y: 5, width: 14, height: 14, rx: 2 }, t);
      it.sign = el('text', { x: 3.5, y: 16 }, t);
      it.sign.textContent = '\u2212';
    }
    var parts = [[n.kind, 'kind'], [n.name, 'name'], [n.args, 'args']];
    // An action's knobs start with its name, an include's are its quoted name: say it once.
    if (n.name && n.args.indexOf(n.name) === 0) parts.splice(1, 1);
    else if (n.name && n.args === JSON.stringify(n.name)) parts.pop();
    var box = el('rect', { 'class': 'box', x: 18, y: 2, height: 20, rx: 3 }, g);
    var text = el('text', { x: 24, y: 16 }, g), len = 0;
    parts.forEach(function (p) {
      if (!p[0]) return;
      var s = cut(p[0]);
      var span = el('tspan', { 'class': p[1] }, text);
      span.textContent = (len ? ' ' : '') + s;
      len += s.length + (len ? 1 : 0);
    });
    box.setAttribute('width', String(Math.round(12 + len * CH)));
    var where = n.file ? n.file + ':' + n.line : '(no source position)';
    el('title', {}, g).textContent =
      '#' + id + ' ' + [n.kind, n.name, n.args].filter(Boolean).join(' ') + '\n' + where;
    it.width = (it.depth * INDENT) + 30 + len * CH;
    (copies[id] || (copies[id] = [])).push(g);
    itemOf.set(g, it);
    svg.appendChild(g);
    rows++;
    mark(it);
    return it;
  }

  // Draws `id`'s subtree under `parent`, depth first without recursion. An include whose
  // subtree is drawn already is left collapsed (made on expand) once MAX_ROWS rows exist.
  function draw(id, parent) {
    var top = makeItem(id, parent);
    var stack = [top];
    while (stack.length) {
      var it = stack.pop();
      var n = nodes[it.id];
      if (n.kind === 'include' && rows >= MAX_ROWS && n.children.length &&
          copies[n.children[0]]) {
        it.kids = null;
        setCollapsed(it, true);
        continue;
      }
      for (var i = 0; i < n.children.length; i++) it.kids.push(makeItem(n.children[i], it));
      for (var j = it.kids.length - 1; j >= 0; j--) stack.push(it.kids[j]);
    }
    return top;
  }

  function setCollapsed(it, on) {
    it.collapsed = on;
    it.g.classList.toggle('collapsed', on);
    if (it.sign) it.sign.textContent = on ? '+' : '\u2212';
  }

  function each(list, f) {
    var stack = list.slice().reverse();
    while (stack.length) {
      var it = stack.pop();
      if (f(it) === false || !it.kids) continue;
      for (var i = it.kids.length - 1; i >= 0; i--) stack.push(it.kids[i]);
    }
  }

  // Places every shown row; rows under a collapsed node are hidden by toggle().
  function layout() {
    var row = 0, width = 200;
    each(roots, function (it) {
      var y = row * ROW;
      row++;
      if (it.g.style.display) it.g.style.display = '';
      if (it.y !== y) {
        it.y = y;
        it.g.setAttribute('transform', 'translate(' + it.depth * INDENT + ',' + y + ')');
      }
      if (it.link) {
        var dy = it.parent.y - y + 19;
        if (it.dy !== dy) {
          it.dy = dy;
          it.link.setAttribute('d', 'M' + (7 - INDENT) + ',' + dy + 'V12H' + (it.sign ? 0 : 18));
        }
      }
      if (it.width > width) width = it.width;
      return !it.collapsed;
    });
    svg.setAttribute('width', String(Math.ceil(width + 20)));
    svg.setAttribute('height', String(row * ROW + 8));
  }

  function toggle(it) {
    if (it.kids === null) {
      it.kids = [];
      var n = nodes[it.id];
      for (var i = 0; i < n.children.length; i++) it.kids.push(draw(n.children[i], it));
    }
    setCollapsed(it, !it.collapsed);
    if (it.collapsed) {
      each(it.kids, function (d) { d.g.style.display = 'none'; });
    }
    layout();
  }

  svg.addEventListener('click', function (e) {
    var t = e.target.closest ? e.target.closest('.toggle') : null;
    if (!t) return;
    var it = itemOf.get(t.parentNode);
    if (it) toggle(it);
  });

  // The current tick's marks on a freshly drawn row.
  function mark(it) {
    if (curActive[it.id]) it.g.classList.add('active');
    if (curStatus[it.id]) it.g.setAttribute('data-status', curStatus[it.id]);
  }

  function setMarks(oldMap, newMap, apply) {
    var id;
    for (id in oldMap) if (!(id in newMap)) (copies[id] || []).forEach(function (g) { apply(g, null); });
    for (id in newMap) {
      if (oldMap[id] === newMap[id]) continue;
      (copies[id] || []).forEach(function (g) { apply(g, newMap[id]); });
    }
  }

  function select(k) {
    if (!ticks.length) return;
    k = Math.max(0, Math.min(ticks.length - 1, k));
    if (k === current) return;
    current = k;
    var t = ticks[k], status = {}, active = {};
    t.events.forEach(function (e) { if (e.event === 'finish') status[e.node] = e.status; });
    t.active.forEach(function (id) { active[id] = true; });
    setMarks(curStatus, status, function (g, s) {
      if (s) g.setAttribute('data-status', s); else g.removeAttribute('data-status');
    });
    setMarks(curActive, active, function (g, on) { g.classList.toggle('active', !!on); });
    curStatus = status;
    curActive = active;
    document.body.dataset.tick = String(t.tick);
    tickEl.textContent = String(t.tick);
    nowEl.textContent = 'now ' + t.now;
    slider.value = String(k);
    callsEl.textContent = '';
    var frag = document.createDocumentFragment();
    t.calls.forEach(function (line) { html('li', {}, frag, line); });
    callsEl.appendChild(frag);
    pathEl.textContent = t.active.length ? t.active.map(function (id) {
      var n = nodes[id];
      return n ? n.kind + (n.name ? ' ' + n.name : '') : '#' + id;
    }).join(' \u203a ') : '(nothing active)';
  }

  function buildTimeline() {
    var c = document.getElementById('controls'), side = document.getElementById('side');
    var prev = html('button', { type: 'button', title: 'previous tick (ArrowLeft, k)' }, c, '\u25c0');
    slider = html('input', { type: 'range', id: 'tick-slider', min: '0',
                             max: String(ticks.length - 1), value: '0', step: '1' }, c);
    var next = html('button', { type: 'button', title: 'next tick (ArrowRight, j)' }, c, '\u25b6');
    html('span', {}, c, 'tick ');
    tickEl = html('span', { id: 'tick' }, c);
    nowEl = html('span', { id: 'now' }, c);
    var legend = html('span', { 'class': 'legend' }, c);
    ['success', 'failure', 'running', 'active'].forEach(function (s) {
      html('span', { 'class': s }, legend, s);
    });
    html('h2', {}, side, 'Active path after the tick');
    pathEl = html('p', { id: 'path' }, side);
    html('h2', {}, side, 'Host calls (agent ' + timeline.agent + ')');
    callsEl = html('ol', { id: 'calls' }, side);
    if (!timeline.traced) {
      html('p', { 'class': 'note' }, side,
           'This model has no node-level trace yet: statuses are not shown.');
    }
    prev.addEventListener('click', function () { select(current - 1); });
    next.addEventListener('click', function () { select(current + 1); });
    slider.addEventListener('input', function () { select(Number(slider.value)); });
    document.addEventListener('keydown', function (e) {
      if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) return;
      var to = { ArrowRight: current + 1, j: current + 1, ArrowLeft: current - 1,
                 k: current - 1, Home: 0, End: ticks.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      select(to);
    });
    window.addEventListener('hashchange', fromHash);
  }

  function fromHash() {
    var m = /^#tick=(\d+)$/.exec(location.hash);
    var k = m ? Number(m[1]) : -1;
    if (k >= 0 && k < ticks.length) select(k);
  }

  document.getElementById('summary').textContent =
    data.dialect + ' \u00b7 ' + nodes.length + ' nodes' +
    (timeline ? ' \u00b7 ' + ticks.length + ' ticks' : '');
  data.roots.forEach(function (id) { roots.push(draw(id, null)); });
  layout();
  if (timeline && ticks.length) {
    buildTimeline();
    select(0);
    fromHash();
  }
})();
