// The page of `toolkit graph`: lays out the embedded graph with dagre (vendored, inlined before this script),
// draws it as SVG so that every node and edge is an element of the page, and shows a node's definition and
// recent instances when it is clicked. Data is only ever written as text (textContent), never as markup.
"use strict";
(function () {
  const started = performance.now();
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const PAD = 10, HEIGHT = 26, LABEL_HEIGHT = 16, LARGE = 200;
  const byId = new Map(data.nodes.map((node) => [node.id, node]));

  // Node boxes are sized from their label's width in the font the CSS gives `.node text`, so no label spills.
  const measure = document.createElement("canvas").getContext("2d");
  const textWidth = (text, font) => { measure.font = font; return Math.ceil(measure.measureText(text).width); };

  const layout = new dagre.graphlib.Graph({ multigraph: true });
  layout.setGraph({ rankdir: "LR", nodesep: 14, ranksep: 56, edgesep: 10, marginx: 20, marginy: 20 });
  data.nodes.forEach((node) => layout.setNode(node.id, {
    width: textWidth(node.label, "12px sans-serif") + 2 * PAD, height: HEIGHT }));
  data.edges.forEach((edge, index) => {
    const label = edge.label
      ? { width: textWidth(edge.label, "11px sans-serif") + 8, height: LABEL_HEIGHT, labelpos: "c" } : {};
    layout.setEdge(edge.source, edge.target, label, String(index));
  });
  // dagre's search for the order with fewest crossings costs half the layout time of a large graph and little
  // readability there (pipelines are mostly chains): it is skipped beyond LARGE nodes, so 500 open in about 1 s.
  dagre.layout(layout, { disableOptimalOrderHeuristic: data.nodes.length > LARGE });
  const laidOut = performance.now();

  const svg = document.getElementById("graph");
  const element = (name, attributes, parent) => {
    const made = document.createElementNS(SVG, name);
    Object.entries(attributes).forEach(([key, value]) => made.setAttribute(key, value));
    if (parent) parent.appendChild(made);
    return made;
  };
  const size = layout.graph();
  svg.setAttribute("viewBox", `0 0 ${size.width} ${size.height}`);
  // The datasources' colour comes with the data (toolkit/views/graph/palette.py): the style sheet reads it from here.
  document.documentElement.style.setProperty("--datasource", data.datasource);
  const ARROWS = { replication: "#5b4fc4", import: data.datasource, export: data.datasource };
  const arrow = (kind) => (ARROWS[kind] ? kind : "edge");
  const defs = element("defs", {}, svg);
  ["edge", "replication", "import", "export"].forEach((kind) => {
    const marker = element("marker", { id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: "10", refY: "5",
      markerUnits: "userSpaceOnUse", markerWidth: "9", markerHeight: "9", orient: "auto-start-reverse" }, defs);
    element("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: ARROWS[kind] || "#888" }, marker);
  });

  const edgeLayer = element("g", { class: "edges" }, svg);
  const edgePaths = data.edges.map((edge, index) => {
    const placed = layout.edge({ v: edge.source, w: edge.target, name: String(index) });
    const d = placed.points.map((p, i) => `${i ? "L" : "M"} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(" ");
    const path = element("path", { class: `edge ${edge.kind}`, d, "data-source": edge.source,
      "data-target": edge.target, "data-kind": edge.kind,
      "marker-end": `url(#arrow-${arrow(edge.kind)})` }, edgeLayer);
    element("title", {}, path).textContent = `${edge.kind}: ${edge.source} → ${edge.target}`
      + (edge.feeds.length ? ` (${edge.feeds.join(", ")})` : "");
    if (edge.label) {
      element("text", { class: `edge-label ${edge.kind}`, x: placed.x, y: placed.y }, edgeLayer).textContent =
        edge.label;
    }
    return path;
  });

  const nodeLayer = element("g", { class: "nodes" }, svg);
  const nodeGroups = new Map();
  data.nodes.forEach((node) => {
    const placed = layout.node(node.id);
    const classes = ["node", node.kind].concat(node.no_producer ? ["no-producer"] : []);
    const group = element("g", { class: classes.join(" "), "data-id": node.id, "data-kind": node.kind,
      "data-status": node.status || "", transform:
        `translate(${(placed.x - placed.width / 2).toFixed(1)} ${(placed.y - placed.height / 2).toFixed(1)})` },
    nodeLayer);
    element("rect", { width: placed.width, height: placed.height, fill: colour(node.status) }, group);
    element("text", { x: PAD, y: placed.height / 2 }, group).textContent = node.label;
    element("title", {}, group).textContent = `${node.kind} ${node.label}`
      + (node.status ? `: ${node.status}` : "") + (node.no_producer ? " (no producer)" : "");
    group.addEventListener("click", (event) => { event.stopPropagation(); select(node.id); });
    nodeGroups.set(node.id, group);
  });

  function colour(status) {
    return status && data.palette[status] ? data.palette[status] : data.no_status;
  }

  // Zoom: the SVG keeps its viewBox; its size on the page is the layout's times the scale, and the canvas scrolls.
  const canvas = document.getElementById("canvas");
  function zoom(scale) {
    svg.setAttribute("width", (size.width * scale).toFixed(0));
    svg.setAttribute("height", (size.height * scale).toFixed(0));
  }
  document.getElementById("actual").addEventListener("click", () => zoom(1));
  document.getElementById("fit").addEventListener("click", () =>
    zoom(Math.min(canvas.clientWidth / size.width, canvas.clientHeight / size.height, 1)));
  zoom(1);

  // Details of the selected node: its facts, its recent instances (newest first) and its YAML as written.
  const details = document.getElementById("details");
  function select(id) {
    const node = byId.get(id);
    nodeGroups.forEach((group, key) => group.classList.toggle("selected", key === id));
    edgePaths.forEach((path) => path.classList.toggle("highlight",
      path.dataset.source === id || path.dataset.target === id));
    document.getElementById("details-name").textContent = `${node.kind} ${node.label}`;
    const facts = document.getElementById("details-facts");
    facts.replaceChildren();
    const fact = (term, value) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = term; dd.textContent = value; facts.append(dt, dd);
    };
    fact("file", node.file);
    if (data.ledger) fact(`status on ${data.cluster}`, node.status || "nothing recorded");
    if (node.no_producer) fact("producer", "none in the repo: written from outside (toolkit publish)");
    const upstream = data.edges.filter((edge) => edge.target === id).map((edge) => edge.source);
    const downstream = data.edges.filter((edge) => edge.source === id).map((edge) => edge.target);
    fact("from", upstream.join(", ") || "nothing");
    fact("to", downstream.join(", ") || "nothing");
    const rows = document.querySelector("#details-recent tbody");
    rows.replaceChildren();
    // A datasource's instances are its feeds' imports and exports: a last column says which.
    const what = node.recent.some((instance) => instance.what);
    document.getElementById("details-what").hidden = !what;
    node.recent.forEach((instance) => {
      const row = rows.insertRow();
      [instance.time, instance.status, instance.run_id || ""].concat(what ? [instance.what || ""] : [])
        .forEach((value) => { row.insertCell().textContent = value; });
      row.cells[1].style.background = colour(instance.status);
    });
    document.getElementById("details-recent").hidden = node.recent.length === 0;
    document.getElementById("details-no-recent").textContent = node.recent.length ? ""
      : (data.ledger ? `No instance recorded on ${data.cluster}.` : "Not read: run toolkit graph with --ledger.");
    document.getElementById("details-definition").textContent = node.definition;
    details.hidden = false;
  }
  function unselect() {
    details.hidden = true;
    nodeGroups.forEach((group) => group.classList.remove("selected"));
    edgePaths.forEach((path) => path.classList.remove("highlight"));
  }
  document.getElementById("close").addEventListener("click", unselect);
  svg.addEventListener("click", unselect);

  // Find: the first entity whose name holds the text is scrolled to and selected.
  document.getElementById("find").addEventListener("change", (event) => {
    const text = event.target.value.trim().toLowerCase();
    const found = text && data.nodes.find((node) => node.label.toLowerCase().includes(text));
    if (found) {
      nodeGroups.get(found.id).scrollIntoView({ block: "center", inline: "center" });
      select(found.id);
    }
  });

  // Title and legend: the kinds, the marks, and (with a ledger) the statuses' colours.
  document.getElementById("title").textContent = `${data.title}` + (data.cluster ? ` on ${data.cluster}` : "")
    + (data.ledger ? " (statuses from its ledger)" : "");
  const legend = document.getElementById("legend");
  const key = (swatchClass, fill, text) => {
    const item = document.createElement("span"), swatch = document.createElement("span");
    item.className = "key"; swatch.className = `swatch ${swatchClass}`; swatch.style.background = fill;
    item.append(swatch, document.createTextNode(text)); legend.append(item);
  };
  key("cluster", "#fff", "cluster"); key("feed", "#fff", "feed"); key("process", "#fff", "process");
  key("datasource", "#fff", "datasource");
  key("no-producer", "#fff", "no producer");
  key("replication", "transparent", "replication");
  key("transfer", "transparent", "import, export");
  if (data.ledger) {
    const shared = new Map();
    Object.entries(data.palette).forEach(([status, fill]) => shared.set(fill, (shared.get(fill) || []).concat(status)));
    shared.forEach((statuses, fill) => key("", fill, statuses.join(", ")));
  }

  // A link to `graph.html#feed/clicks` (each entity's on the status page of `toolkit report`) opens at its node.
  const wanted = decodeURIComponent(window.location.hash.slice(1));
  if (byId.has(wanted)) {
    nodeGroups.get(wanted).scrollIntoView({ block: "center", inline: "center" });
    select(wanted);
  }

  window.pipelinesGraph = { nodes: data.nodes.length, edges: data.edges.length,
    layoutMs: laidOut - started, totalMs: performance.now() - started, select };
  document.body.dataset.ready = "true";
})();
