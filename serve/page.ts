/**
 * The page served at `/`: one HTML document held in memory, its script
 * and style inline and pinned by hash in a strict Content-Security-Policy
 * (no build step, no framework, nothing from another origin). It signs in
 * with the token (kept in the tab's session storage), lists sessions,
 * starts or opens one, streams a turn (text, tool lines, cost), answers
 * approvals, shows MCP servers' states and when it reconnects, and charts
 * tokens and cost per turn in inline SVG: the session's stored per-turn
 * figures (the show record's `turnUsage`, so turns from before the page
 * or the server started too), extended live as turns complete.
 *
 * @module
 */

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{display:flex;gap:1em;align-items:center;padding:.6em 1em;background:#24292f;color:#fff}
header b{font-size:1.1em}#conn{margin-left:auto;font-size:.9em}
#conn.bad{color:#ffb4a8}main{display:flex;gap:1em;padding:1em}
#side{width:18em}#view{flex:1;min-width:0}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.8em;margin-bottom:1em}
button{cursor:pointer}input,select,textarea{font:inherit}
#sessions li{cursor:pointer;margin:.2em 0}#sessions li:hover{text-decoration:underline}
.turn{border-top:1px solid #eaeef2;padding:.4em 0}.turn:first-child{border-top:0}.user{font-weight:600;white-space:pre-wrap}
.answer{white-space:pre-wrap}.tool{font-family:monospace;color:#57606a}
.cost,.mcp{color:#57606a;font-size:.85em}.approval{background:#fff8c5;padding:.5em;margin:.4em 0}
#compose{display:flex;gap:.5em}#compose textarea{flex:1;height:3.2em}
#app{display:contents}.hidden,#app.hidden{display:none}svg text{font-size:10px;fill:#57606a}
`;

const SCRIPT = `
"use strict";
const $ = (id) => document.getElementById(id);
const state = { token: sessionStorage.getItem("relavium.token") || "", sid: "", lastId: "", es: null, turns: [], used: 0, turn: null, stopped: false };
const TYPES = ["session:started","session:turn_started","session:turn_completed","session:cancelled","session:compacting","session:compacted","session:trimmed","agent:token","agent:reasoning","agent:tool_call","agent:tool_result","agent:approval_requested","cost:updated","server:heartbeat","server:resync","server:approval_requested","server:approval_resolved","server:idle","session:mcp_server"];
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
async function api(method, path, body) {
  const r = await fetch(path, { method, headers: { authorization: "Bearer " + state.token, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const j = r.headers.get("content-type")?.includes("json") ? await r.json() : await r.text();
  if (!r.ok) throw new Error((j && j.message) || r.status);
  return j;
}
function conn(text, bad) { const c = $("conn"); c.textContent = text; c.className = bad ? "bad" : ""; }
async function signIn(ev) {
  if (ev) ev.preventDefault();
  state.token = $("token").value || state.token;
  try { await listSessions(); } catch (e) { conn("sign-in failed: " + e.message, true); return; }
  sessionStorage.setItem("relavium.token", state.token);
  $("login").classList.add("hidden"); $("app").classList.remove("hidden");
  const sid = location.hash.startsWith("#s=") ? decodeURIComponent(location.hash.slice(3)) : "";
  if (sid) openSession(sid);
}
async function listSessions() {
  const { sessions } = await api("GET", "/v1/sessions");
  const ul = $("sessions"); ul.replaceChildren();
  for (const s of sessions) {
    const li = el("li", "", (s.title || "(untitled)") + " · " + s.agentSlug + " · " + s.turns + " turns");
    li.onclick = () => openSession(s.sessionId); ul.append(li);
  }
}
async function newSession(ev) {
  ev.preventDefault();
  const body = { mode: $("mode").value };
  if ($("agent").value) body.agent = $("agent").value;
  try { const c = await api("POST", "/v1/sessions", body); await openSession(c.sessionId, true); } catch (e) { conn("cannot start: " + e.message, true); }
}
function chartFrom(session) {
  // The stored figures of every provider-engaged turn (the store's, so
  // turns from before this page or this server are there too).
  state.turns = ((session && session.turnUsage) || []).map((u) => ({ n: u.turnNumber, input: u.inputTokens, output: u.outputTokens, cost: u.costMicrocents }));
  state.used = Math.max((session && session.turnsUsed) || 0, ...state.turns.map((t) => t.n));
  drawChart();
}
function renderTranscript(st) {
  const t = $("transcript"); t.replaceChildren();
  for (const turn of (st.session && st.session.turns) || []) {
    const d = el("div", "turn"); d.append(el("div", "user", turn.user), el("div", "answer", turn.assistant));
    t.append(d);
  }
  $("approvals").replaceChildren();
  for (const a of st.pendingApprovals) showApproval(a);
  chartFrom(st.session);
}
async function openSession(sid, fresh) {
  if (state.es) state.es.close();
  state.sid = sid; state.turn = null; location.hash = "s=" + encodeURIComponent(sid);
  $("title").textContent = "Session " + sid;
  const st = await api("GET", "/v1/sessions/" + encodeURIComponent(sid));
  renderTranscript(st);
  // The record holds everything up to its last event id: go on from there;
  // a session just started is read from its first event (its MCP servers).
  state.lastId = fresh ? st.lastEventId.split(".")[0] + ".0" : st.lastEventId;
  connect();
}
async function connect() {
  if (!state.sid || state.stopped) return;
  const sid = state.sid;
  let ticket;
  try { ticket = (await api("POST", "/v1/tickets", { sessionId: sid })).ticket; }
  catch (e) { conn("reconnecting…", true); setTimeout(connect, 1000); return; }
  if (sid !== state.sid) return;
  const q = new URLSearchParams({ ticket }); if (state.lastId) q.set("after", state.lastId);
  const es = new EventSource("/v1/sessions/" + encodeURIComponent(sid) + "/events?" + q);
  state.es = es;
  es.onopen = () => conn("live", false);
  es.onerror = () => { if (state.es !== es) return; es.close(); state.es = null; conn("reconnecting…", true); setTimeout(connect, 300); };
  for (const type of TYPES) es.addEventListener(type, (m) => {
    if (state.es !== es) return;
    state.lastId = m.lastEventId;
    onEvent(type, JSON.parse(m.data));
  });
}
function currentTurn() {
  if (!state.turn) { const d = el("div", "turn"); const a = el("div", "answer"); d.append(a); $("transcript").append(d); state.turn = { div: d, answer: a, input: 0, output: 0, cost: 0 }; }
  return state.turn;
}
function toolLine(text) {
  // Text after a tool line goes below it, in a new answer block.
  const t = currentTurn(); t.div.append(el("div", "tool", text));
  t.answer = el("div", "answer"); t.div.append(t.answer);
}
function mcpLine(e) {
  const detail = e.state === "connected" ? " (" + e.tools + " tools)" : e.state === "failed" ? ": " + e.reason : "";
  $("transcript").append(el("div", "mcp", "MCP server " + e.server + ": " + e.state + detail));
  $("mcp").textContent = "MCP " + e.server + ": " + e.state;
}
async function refreshChart(sid) {
  // The store's figures, once a turn's spend is written.
  try { const st = await api("GET", "/v1/sessions/" + encodeURIComponent(sid)); if (sid === state.sid) chartFrom(st.session); } catch { /* the live figures stay */ }
}
function onEvent(type, e) {
  switch (type) {
    case "server:resync": state.turn = null; renderTranscript(e.state); break;
    case "session:mcp_server": mcpLine(e); break;
    case "session:turn_started": currentTurn(); break;
    case "agent:token": currentTurn().answer.append(e.token); break;
    case "agent:tool_call": toolLine("→ " + e.toolId + " " + JSON.stringify(e.toolInput)); break;
    case "agent:tool_result": toolLine((e.success ? "✓ " : "✗ ") + e.toolId + ": " + e.outputSummary); break;
    case "cost:updated": { const t = currentTurn(); t.input += e.inputTokens; t.output += e.outputTokens; t.cost += e.costMicrocents; break; }
    case "session:turn_completed": { const t = currentTurn(); t.div.append(el("div", "cost", t.input + " in · " + t.output + " out · $" + (t.cost / 1e8).toFixed(6) + (e.error ? " · " + e.error.message : ""))); state.used += 1; state.turns.push({ n: state.used, input: t.input, output: t.output, cost: t.cost }); drawChart(); break; }
    case "server:approval_requested": showApproval(e.approval); break;
    case "server:approval_resolved": { const d = document.querySelector('[data-request="' + CSS.escape(e.requestId) + '"]'); if (d) d.remove(); break; }
    case "server:idle": state.turn = null; $("send").disabled = false; listSessions().catch(() => {}); refreshChart(state.sid); break;
  }
}
function showApproval(a) {
  const d = el("div", "approval"); d.dataset.request = a.requestId;
  d.append(el("span", "", a.toolId + " wants to " + a.action + ": " + (a.preview.path || a.preview.command || a.preview.host || "") + " "));
  for (const decision of ["once", "always", "reject"]) {
    const b = el("button", "", decision);
    b.onclick = () => api("POST", "/v1/sessions/" + encodeURIComponent(state.sid) + "/approvals/" + encodeURIComponent(a.requestId), { decision }).catch((e) => conn(e.message, true));
    d.append(b);
  }
  $("approvals").append(d);
}
async function send(ev) {
  ev.preventDefault();
  const text = $("text").value.trim(); if (!text || !state.sid) return;
  $("send").disabled = true;
  const d = el("div", "turn"); d.append(el("div", "user", text)); $("transcript").append(d);
  state.turn = { div: d, answer: el("div", "answer"), input: 0, output: 0, cost: 0 }; d.append(state.turn.answer);
  try { await api("POST", "/v1/sessions/" + encodeURIComponent(state.sid) + "/messages", { text, idempotencyKey: crypto.randomUUID() }); $("text").value = ""; }
  catch (e) { conn("not sent: " + e.message, true); $("send").disabled = false; }
}
function drawChart() {
  const svg = $("chart"); svg.replaceChildren();
  const NS = "http://www.w3.org/2000/svg"; const W = 300, H = 100;
  const turns = state.turns; if (!turns.length) return;
  const maxT = Math.max(1, ...turns.map((t) => t.input + t.output)); const maxC = Math.max(1, ...turns.map((t) => t.cost));
  const w = W / turns.length;
  turns.forEach((t, i) => {
    const h = (t.input + t.output) / maxT * (H - 15);
    const r = document.createElementNS(NS, "rect");
    r.setAttribute("x", i * w + 2); r.setAttribute("width", Math.max(1, w / 2 - 2)); r.setAttribute("y", H - h); r.setAttribute("height", h); r.setAttribute("fill", "#54aeff");
    const c = document.createElementNS(NS, "rect"); const hc = t.cost / maxC * (H - 15);
    c.setAttribute("x", i * w + w / 2); c.setAttribute("width", Math.max(1, w / 2 - 2)); c.setAttribute("y", H - hc); c.setAttribute("height", hc); c.setAttribute("fill", "#fb8f44");
    const title = document.createElementNS(NS, "title"); title.textContent = "turn " + t.n + ": " + t.input + " in, " + t.output + " out, " + t.cost + " µ¢"; r.append(title);
    svg.append(r, c);
  });
  const label = document.createElementNS(NS, "text"); label.setAttribute("x", 2); label.setAttribute("y", 10); label.textContent = "tokens (blue) and cost (orange) per turn"; svg.append(label);
}
$("loginForm").onsubmit = signIn; $("newForm").onsubmit = newSession; $("compose").onsubmit = send;
$("abort").onclick = () => state.sid && api("POST", "/v1/sessions/" + encodeURIComponent(state.sid) + "/abort").catch(() => {});
if (state.token) signIn();
`;

const HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>relavium</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>${STYLE}</style></head><body>
<header><b>relavium</b><span id="title"></span><span id="mcp"></span><span id="conn">signed out</span></header>
<main>
<div id="login"><section><form id="loginForm"><label>Token <input id="token" type="password" autocomplete="off"></label> <button>Sign in</button></form></section></div>
<div id="app" class="hidden">
<div id="side"><section><form id="newForm"><div><label>Agent <input id="agent" placeholder="built-in"></label></div>
<div><label>Mode <select id="mode"><option>ask</option><option>plan</option><option>accept-edits</option><option>auto</option></select></label></div>
<button>New session</button></form></section>
<section><b>Sessions</b><ul id="sessions"></ul></section></div>
<div id="view"><section><div id="transcript"></div><div id="approvals"></div>
<form id="compose"><textarea id="text" placeholder="Message"></textarea><button id="send">Send</button><button type="button" id="abort">Abort</button></form></section>
<section><svg id="chart" width="300" height="100" role="img" aria-label="tokens and cost per turn"></svg></section></div>
</div></main>
<script>${SCRIPT}</script></body></html>`;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

let csp: Promise<string> | undefined;

function policy(): Promise<string> {
  csp ??= (async () =>
    [
      "default-src 'none'",
      `script-src 'sha256-${await sha256(SCRIPT)}'`,
      `style-src 'sha256-${await sha256(STYLE)}'`,
      "connect-src 'self'",
      "img-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "))();
  return csp;
}

/**
 * The page's response, with its Content-Security-Policy.
 *
 * @returns The response.
 */
export async function pageResponse(): Promise<Response> {
  return new Response(HTML, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": await policy(),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}
