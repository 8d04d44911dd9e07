// The status page: one grid of cells per feed and process, built from the JSON the page embeds. Each cell is an
// element carrying its instance time (data-t) and state (data-s); hover shows a summary, a click the details and
// the commands. Big pages build a grid's cells when it scrolls into view.
(() => {
  const started = performance.now();
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const EAGER_CELLS = 50000;  // up to this many cells in all, every grid is built at once
  const states = data.states;
  const stateByCode = (code) => states[parseInt(code, 36)];
  const stamp = (minutes) => new Date(minutes * 60000).toISOString().slice(0, 16) + "Z";
  // A grid's times come as [first, step, count, step, count, ...] (minutes since the epoch): unrolled here.
  data.grids.forEach((grid) => {
    const runs = grid.times, times = runs.length ? [runs[0]] : [];
    for (let r = 1; r < runs.length; r += 2) {
      for (let k = 0; k < runs[r + 1]; k++) times.push(times[times.length - 1] + runs[r]);
    }
    grid.times = times;
  });

  // One rule per state: a cell's colour comes from its data-s, not from a style of its own.
  const palette = document.createElement("style");
  palette.textContent = states.map((s) => `.cell[data-s="${s.name}"]{background:${s.colour}}`).join("\n");
  document.head.append(palette);

  document.getElementById("title").textContent =
    `${data.title}: status of cluster ${data.cluster} at ${data.now}`;

  // The header: what needs a person now.
  const attention = document.getElementById("attention");
  const header = data.header;
  const fact = (text, bad, items) => {
    const span = document.createElement("span");
    span.className = `fact ${bad ? "bad" : "ok"}`;
    span.textContent = text;
    (items || []).forEach((item, index) => {
      span.append(index === 0 ? ": " : ", ");
      const link = document.createElement("a");
      link.href = "#"; link.textContent = `${item.entity} ${item.time}`;
      link.addEventListener("click", (event) => { event.preventDefault(); selectTime(item.entity, item.time); });
      span.append(link);
    });
    attention.append(span);
  };
  fact(`${header.failures} failed`, header.failures > 0, header.failed);
  fact(`${header.sla_misses} SLA missed`, header.sla_misses > 0, header.missed);
  fact(`${header.held} held`, header.held > 0, header.held_list);
  if (header.suspended.length) fact(`suspended: ${header.suspended.join(", ")}`, true);
  if (header.oldest_waiting) fact("oldest waiting", true, [header.oldest_waiting]);
  else fact("nothing waiting", false);

  // The legend, and the filters' choices.
  const legend = document.getElementById("legend");
  const key = (className, text, colour) => {
    const item = document.createElement("span"), swatch = document.createElement("span");
    item.className = "key"; swatch.className = `swatch ${className}`;
    if (colour) swatch.style.background = colour;
    item.append(swatch, document.createTextNode(text)); legend.append(item);
  };
  const used = new Set(data.grids.flatMap((grid) => [...new Set(grid.states)]).map((code) => stateByCode(code).name));
  states.forEach((s) => key("", s.name, s.colour));
  key("sla", "SLA missed (outline)");
  const choose = (id, values) => {
    const select = document.getElementById(id);
    [...values].sort().forEach((value) => { select.add(new Option(value, value)); });
    return select;
  };
  const tagFilter = choose("filter-tag",
    new Set(data.grids.flatMap((grid) => Object.entries(grid.tags).map(([k, v]) => `${k}=${v}`))));
  const pipelineFilter = choose("filter-pipeline", new Set(data.grids.flatMap((grid) => grid.pipelines)));
  const stateFilter = choose("filter-state", used);
  const nameFilter = document.getElementById("filter-name");

  // The grids, in the dependency order the data gives.
  const container = document.getElementById("grids");
  const sections = [];
  const byNode = new Map();
  const total = data.grids.reduce((sum, grid) => sum + grid.times.length, 0);
  const buildCells = (grid, section) => {
    if (section.dataset.built) return;
    section.dataset.built = "true";
    const cells = section.querySelector(".cells");
    const fragment = document.createDocumentFragment();
    for (let i = 0; i < grid.times.length; i++) {
      const cell = document.createElement("i");
      cell.className = grid.sla[i] !== undefined ? "cell sla" : "cell";
      cell.dataset.t = stamp(grid.times[i]);
      cell.dataset.s = stateByCode(grid.states[i]).name;
      cell.dataset.i = i;
      fragment.append(cell);
    }
    cells.append(fragment);
  };
  const observer = total > EAGER_CELLS ? new IntersectionObserver((entries) => entries.forEach((entry) => {
    if (entry.isIntersecting) {
      const section = entry.target;
      buildCells(data.grids[section.dataset.index], section);
      section.querySelector(".cells").style.minHeight = "";
      observer.unobserve(section);
    }
  }), { rootMargin: "200px" }) : null;
  // A grid not built yet takes the height its cells will take, so that only the grids in view are built.
  const CELL_WIDTH = 11, CELL_HEIGHT = 13;
  data.grids.forEach((grid, index) => {
    const section = document.createElement("section");
    section.className = "grid";
    Object.assign(section.dataset, { node: grid.node, kind: grid.kind, name: grid.name, index });
    const title = document.createElement("h2");
    const kind = document.createElement("span"), name = document.createElement("span");
    const about = document.createElement("span"), link = document.createElement("a");
    kind.className = "kind"; kind.textContent = `${grid.kind} `;
    name.className = "name"; name.textContent = grid.name;
    const tags = Object.entries(grid.tags).map(([k, v]) => `${k}=${v}`);
    about.className = "about";
    about.textContent = ` ${grid.frequency}, ${grid.times.length} instance${grid.times.length === 1 ? "" : "s"}`
      + (grid.pipelines.length ? `, pipelines ${grid.pipelines.join(", ")}` : "")
      + (tags.length ? `, tags ${tags.join(", ")}` : "") + " ";
    link.href = `${data.graph_page}#${grid.node}`; link.textContent = "on the graph";
    title.append(kind, name, about, link);
    if (grid.suspended) {
      const suspended = document.createElement("span");
      suspended.className = "suspended"; suspended.textContent = ` suspended: ${grid.suspended}`;
      title.append(suspended);
    }
    const cells = document.createElement("div");
    cells.className = "cells";
    section.append(title, cells);
    if (!grid.times.length) {
      const empty = document.createElement("span");
      empty.className = "empty"; empty.textContent = "no instance in the window";
      cells.append(empty);
    }
    container.append(section);
    sections.push(section);
    byNode.set(grid.node, { grid, section });
    if (observer) {
      const perLine = Math.max(Math.floor(container.clientWidth / CELL_WIDTH), 1);
      cells.style.minHeight = `${Math.ceil(grid.times.length / perLine) * CELL_HEIGHT}px`;
      observer.observe(section);
    } else {
      buildCells(grid, section);
    }
  });

  // Hover: a summary; click: the details and the commands.
  const tip = document.getElementById("tip");
  const summary = (grid, i) => {
    const state = stateByCode(grid.states[i]).name, details = grid.details[i] || {};
    const lines = [`${grid.node} ${stamp(grid.times[i])}: ${state}`];
    if (details.attempts) lines.push(`${details.attempts} attempt(s)`);
    if (details.started) lines.push(`started ${details.started}` + (details.ended ? `, ended ${details.ended}` : ""));
    if (details.error) lines.push(`error: ${details.error}`);
    if (details.waits_for && details.waits_for.length) lines.push(`waits for ${details.waits_for.join(", ")}`);
    const quality = (details.tries || []).flatMap((attempt) => attempt.quality);
    if (quality.length) lines.push(`quality: ${quality[quality.length - 1]}`);
    if (details.commit) lines.push(`config commit ${details.commit.slice(0, 12)}`);
    if (grid.sla[i]) lines.push(`SLA: ${grid.sla[i]}`);
    lines.push("click for the attempts and the commands");
    return lines.join("\n");
  };
  const cellOf = (target) => (target.classList && target.classList.contains("cell") ? target : null);
  container.addEventListener("mouseover", (event) => {
    const cell = cellOf(event.target);
    if (!cell) { tip.hidden = true; return; }
    const { grid } = byNode.get(cell.closest(".grid").dataset.node);
    tip.textContent = summary(grid, Number(cell.dataset.i));
    tip.style.left = `${event.clientX + 12}px`; tip.style.top = `${event.clientY + 12}px`;
    tip.hidden = false;
  });
  container.addEventListener("mouseleave", () => { tip.hidden = true; });
  container.addEventListener("click", (event) => {
    const cell = cellOf(event.target);
    if (cell) select(cell.closest(".grid").dataset.node, Number(cell.dataset.i));
  });

  const details = document.getElementById("details");
  let selected = null;
  function commands(grid, i, state) {
    const t = stamp(grid.times[i]);
    const lines = [`# why it is not done, up through what it needs\ntoolkit triage ${grid.options} --time ${t}`];
    if (grid.kind === "process" && state.name === "suspended") {
      lines.push(`# release the hold: the next call runs it\ntoolkit resume ${grid.options} --time ${t}`);
    } else if (grid.kind === "process" && state.rerun_status) {
      lines.push(`# rerun it (prints the spark-submit command without --execute)\n`
        + `toolkit rerun ${grid.options} --from ${t} --to ${t} --status ${state.rerun_status} --execute`);
    } else if (grid.kind === "feed") {
      lines.push("# a feed instance is rerun through the process that writes it (its producer below)");
    }
    return lines.join("\n");
  }
  function select(node, i) {
    const { grid, section } = byNode.get(node);
    buildCells(grid, section);
    const cell = section.querySelector(`.cell[data-i="${i}"]`);
    if (selected) selected.classList.remove("selected");
    selected = cell; cell.classList.add("selected");
    const state = stateByCode(grid.states[i]), info = grid.details[i] || {};
    document.getElementById("details-name").textContent = `${grid.kind} ${grid.name} ${stamp(grid.times[i])}`;
    const facts = document.getElementById("details-facts");
    facts.replaceChildren();
    const fact = (term, value) => {
      if (value === undefined || value === null || value === "") return;
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = term; dd.textContent = value; facts.append(dt, dd);
    };
    fact("state", state.name);
    fact("SLA", grid.sla[i]);
    fact("attempts", info.attempts);
    fact("run id", info.run_id);
    fact(grid.kind === "feed" ? "published" : "started", info.started);
    fact("ended", info.ended);
    fact("error", info.error);
    if (info.waits_for) fact("waits for", info.waits_for.join(", ") || "nothing missing now: its next call runs it");
    fact("waits for", info.waits_note);
    fact("held", info.hold);
    fact("config commit", info.commit);
    fact("producer", info.producer);
    fact("location", info.location);
    fact("events", info.events);
    if (!grid.details[i] && ["succeeded", "published"].includes(state.name)) fact("details", "not read for this older success: toolkit status tells them");
    const rows = document.querySelector("#details-tries tbody");
    rows.replaceChildren();
    (info.tries || []).forEach((attempt) => {
      const row = rows.insertRow();
      [attempt.number, attempt.kind, attempt.status, attempt.started, attempt.ended || "", attempt.error || "",
        attempt.quality.join("\n")].forEach((value) => { row.insertCell().textContent = value; });
    });
    document.getElementById("details-tries").hidden = !(info.tries || []).length;
    document.getElementById("details-tries-title").hidden = !(info.tries || []).length;
    document.getElementById("details-command").textContent = commands(grid, i, state);
    details.hidden = false;
    cell.scrollIntoView({ block: "nearest" });
  }
  function selectTime(node, time) {
    const { grid } = byNode.get(node);
    const i = grid.times.findIndex((minutes) => stamp(minutes) === time);
    if (i >= 0) select(node, i);
  }
  document.getElementById("close").addEventListener("click", () => {
    details.hidden = true;
    if (selected) selected.classList.remove("selected");
  });

  // Filters: name (letters in order, as `toolkit status --name`), tag, pipeline, state (grids with such a cell;
  // the other cells are dimmed).
  const only = document.getElementById("only-state");
  const subsequence = (letters, name) => { let at = 0; for (const c of name) if (c === letters[at]) at++; return at === letters.length; };
  function filter() {
    const letters = nameFilter.value.trim().toLowerCase(), tag = tagFilter.value;
    const pipeline = pipelineFilter.value, stateName = stateFilter.value;
    const code = stateName ? states.findIndex((s) => s.name === stateName).toString(36) : null;
    let shown = 0;
    sections.forEach((section) => {
      const { grid } = byNode.get(section.dataset.node);
      const visible = subsequence(letters, grid.name.toLowerCase())
        && (!tag || Object.entries(grid.tags).some(([k, v]) => `${k}=${v}` === tag))
        && (!pipeline || grid.pipelines.includes(pipeline))
        && (!code || grid.states.includes(code));
      section.hidden = !visible;
      if (visible) shown++;
    });
    only.textContent = stateName ? `.cell:not([data-s="${stateName}"]){opacity:.15}` : "";
    document.getElementById("shown").textContent = `${shown} of ${sections.length} shown`;
  }
  [nameFilter, tagFilter, pipelineFilter, stateFilter].forEach((input) => input.addEventListener("input", filter));
  filter();

  window.statusReport = { grids: data.grids.length, cells: total, totalMs: performance.now() - started, select, selectTime };
  document.body.dataset.ready = "true";
})();
