// fabrictest portal: the live preview (server-sent events), the copy
// buttons and the refresh of node statuses. Every value from the emulator
// is set with textContent, never as markup.
"use strict";

(function () {
  // Forms return to the page they were sent from.
  for (const b of document.querySelectorAll("input[data-back]")) {
    b.value = location.pathname + location.search.replace(/([?&])(paused|resumed)=[^&]*&?/, "$1").replace(/[?&]$/, "");
  }

  // Copy buttons.
  for (const btn of document.querySelectorAll("button[data-copy]")) {
    btn.addEventListener("click", async () => {
      const input = document.getElementById(btn.dataset.copy);
      const state = document.querySelector("[data-copy-state]");
      try {
        await navigator.clipboard.writeText(input.value);
        state.textContent = "Copied.";
      } catch (e) {
        input.select();
        state.textContent = document.execCommand("copy") ? "Copied." : "Select the text and copy it.";
      }
    });
  }

  // Node statuses, errors and data insights, refreshed every 2 s. A
  // refresh that fails says so above the canvas (the figures below are
  // then stale) and the next tick tries again.
  const topo = document.querySelector("[data-status-url]");
  if (topo) {
    const notice = topo.querySelector("[data-refresh-state]");
    const failed = (what) => {
      notice.textContent = `Refresh failed (${what}); the statuses and figures below may be out of date. Retrying every 2 s.`;
      notice.hidden = false;
    };
    const classOf = (s) => ({ Running: "ok", Paused: "warn", Unknown: "warn", Creating: "warn", Warning: "warn" }[s] || "bad");
    const refresh = async () => {
      try {
        const r = await fetch(topo.dataset.statusUrl, { cache: "no-store" });
        if (!r.ok) {
          let why = `${r.status}`;
          try {
            const e = await r.json();
            why = `${r.status} ${e.errorCode}: ${e.message}`;
          } catch (e) { /* not the envelope: the status says enough */ }
          failed(why);
          return;
        }
        const { nodes } = await r.json();
        notice.hidden = true;
        for (const n of nodes) {
          const el = document.querySelector(`[data-node="${CSS.escape(n.id)}"]`);
          if (!el) continue;
          const st = el.querySelector("[data-status]");
          if (st && n.status && st.textContent !== n.status) {
            st.textContent = n.status;
            st.className = "status " + classOf(n.status);
          }
          const box = document.querySelector(`[data-graph-id="${CSS.escape(n.id)}"]`);
          if (box && n.status) {
            box.querySelector("rect").setAttribute("class", "box " + classOf(n.status));
            const label = box.querySelector("[data-graph-status]");
            label.textContent = label.textContent.replace(/ · .*$/, "") + " · " + n.status;
          }
          const err = el.querySelector("[data-error]");
          if (err) {
            err.hidden = !n.error;
            err.querySelector("[data-error-code]").textContent = n.error ? n.error.errorCode : "";
            err.querySelector("[data-error-message]").textContent = n.error ? n.error.errorMessage : "";
          }
          const recent = el.querySelector("[data-recent-errors]");
          if (recent) {
            const items = (n.recentErrors || []).map((e) => {
              const li = document.createElement("li");
              const t = document.createElement("time");
              t.className = "nowrap";
              t.textContent = e.time;
              li.append(t, document.createTextNode(" " + e.message));
              return li;
            });
            recent.querySelector("ul").replaceChildren(...items);
            recent.hidden = items.length === 0;
          }
          const chart = el.querySelector("[data-spark]");
          if (chart && n.spark) {
            chart.querySelector("polyline").setAttribute("points", n.spark.points);
            chart.querySelector("svg").setAttribute("aria-label", n.spark.label);
            chart.hidden = false;
          }
          for (const m of n.metrics || []) {
            const td = el.querySelector(`[data-metric="${CSS.escape(m.Name)}"]`);
            if (td) td.textContent = String(m.Value);
          }
        }
      } catch (e) {
        failed("the emulator did not answer");
      }
    };
    setInterval(refresh, 2000);
  }

  // Live preview.
  const rows = document.querySelector("[data-preview-rows]");
  if (!rows) return;
  const pick = document.getElementById("preview-stream");
  const toggle = document.querySelector("[data-preview-toggle]");
  const state = document.querySelector("[data-preview-state]");
  const keep = 100;
  let source = null;
  let count = 0;

  const shown = (s) => {
    const wrap = document.createElement("div");
    if (!s || s.kind === "null") {
      wrap.textContent = "null";
      return wrap;
    }
    const kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = `${s.kind}, ${s.bytes} bytes`;
    const pre = document.createElement("pre");
    pre.textContent = s.text;
    wrap.append(kind, pre);
    if (s.base64) pre.title = "base64: " + s.base64;
    return wrap;
  };

  const add = (rec) => {
    const tr = document.createElement("tr");
    tr.dataset.offset = `${rec.partition}/${rec.offset}`;
    const cells = [
      document.createTextNode(`${rec.partition}/${rec.offset}`),
      document.createTextNode(rec.timestamp),
      shown(rec.key),
      (() => {
        const d = document.createElement("div");
        for (const h of rec.headers) {
          const line = document.createElement("div");
          line.append(document.createTextNode(h.key + ": "), shown(h.value));
          d.append(line);
        }
        return d;
      })(),
      shown(rec.value),
    ];
    for (const c of cells) {
      const td = document.createElement("td");
      td.append(c);
      tr.append(td);
    }
    rows.prepend(tr);
    while (rows.children.length > keep) rows.lastElementChild.remove();
    count++;
    state.textContent = `Live: ${count} record${count === 1 ? "" : "s"} received.`;
  };

  const open = () => {
    if (source) source.close();
    rows.replaceChildren();
    count = 0;
    state.textContent = "Connecting…";
    source = new EventSource(pick.value);
    source.addEventListener("open", () => { if (count === 0) state.textContent = "Live: waiting for records."; });
    source.addEventListener("record", (e) => add(JSON.parse(e.data)));
    source.addEventListener("problem", (e) => { state.textContent = "Preview stopped: " + JSON.parse(e.data).message; });
    source.addEventListener("error", () => { if (source.readyState === EventSource.CLOSED) state.textContent = "Preview closed."; });
    toggle.textContent = "Pause preview";
  };

  pick.addEventListener("change", open);
  toggle.addEventListener("click", () => {
    if (source && source.readyState !== EventSource.CLOSED) {
      source.close();
      state.textContent = `Paused: ${count} record${count === 1 ? "" : "s"} shown.`;
      toggle.textContent = "Resume preview";
    } else {
      open();
    }
  });
  open();
})();
