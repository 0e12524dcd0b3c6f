import HeadlessTable

/// `serve`'s page: one HTML document, no external resources — the table's
/// markup as `HTMLRenderer` made it, a style sheet, `HTMLRenderer.script`
/// and a small script of its own that opens the event stream, applies what
/// arrives, and posts keys, scrolls, the search text, deletes and the
/// grid's height back.
enum WebPage {
    /// The policy the page is served with: nothing from elsewhere, scripts
    /// only the page's own (by nonce), requests only to the server; inline
    /// styles allowed (the rows' heights are style attributes; a nonce in
    /// `style-src` would turn them off).
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The page of a session: its table as it is now, the token and the
    /// session's name for the script's requests (both hex, made by the server).
    static func html(session: WebSession, token: String, nonce: String) -> String {
        let table: String
        switch session.renderer.render(session.model.shownTable.currentFrame) {
        case .html(let html): table = html
        case .operations: table = session.renderer.html ?? ""
        }
        let name = HTMLText.escaped(session.model.name)
        let title = HTMLText.escaped(session.model.title)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(name) — headless-table serve</title>
            <link rel="icon" href="data:,">
            <style>\(style)</style>
            </head>
            <body>
            <header id="ht-title">\(title)</header>
            <main id="ht-main">
            \(table)</main>
            <footer id="ht-status" aria-live="polite">\(help)</footer>
            <script nonce="\(nonce)">
            \(HTMLRenderer.script)
            const TOKEN = "\(token)", SESSION = "\(session.id)", ROW = \(Int(WebSession.rowPixels)), HELP = "\(help)";
            \(script)
            </script>
            </body>
            </html>

            """
    }

    static let help = "↑↓ PgUp PgDn Home End: move · type in the search field to filter · Delete: delete the selected row"

    static let style = """
        html, body { margin: 0; height: 100%; font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; background: #fff; }
        body { display: flex; flex-direction: column; }
        #ht-title, #ht-status { flex: none; padding: 4px 10px; background: #2c2c2e; color: #f5f5f7; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        #ht-main { flex: 1; min-height: 0; display: flex; }
        .ht-table { flex: 1; min-width: 0; display: flex; flex-direction: column; position: relative; }
        .ht-search { flex: none; margin: 6px 10px; padding: 4px 8px; font: inherit; border: 1px solid #c7c7cc; border-radius: 6px; }
        .ht-scopes { flex: none; display: flex; gap: 8px; padding: 0 10px 6px; }
        .ht-scopes [aria-checked="true"] { font-weight: 600; }
        .ht-grid { flex: none; overflow-y: auto; overflow-anchor: none; outline: none; position: relative; }
        .ht-grid:focus-visible { box-shadow: inset 0 0 0 2px #0a64d8; }
        .ht-row, .ht-header, .ht-footer { box-sizing: border-box; display: flex; align-items: center; padding: 0 10px; white-space: nowrap; overflow: hidden; }
        .ht-row { border-bottom: 1px solid #f0f0f2; }
        .ht-row[aria-selected="true"] { background: #0a64d8; color: #fff; }
        .ht-row[aria-selected="true"] .ht-detail { color: #dde8fb; }
        .ht-text { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
        .ht-detail { margin-left: 16px; color: #6e6e73; overflow: hidden; text-overflow: ellipsis; }
        .ht-header { background: #f2f2f7; font-weight: 600; font-size: 13px; }
        .ht-floating { position: sticky; z-index: 1; }
        .ht-header.ht-floating { top: 0; }
        .ht-footer.ht-floating { bottom: 0; }
        .ht-footer { color: #6e6e73; font-size: 13px; }
        .ht-grouped .ht-header, .ht-inset-grouped .ht-header { background: none; align-items: flex-end; color: #6e6e73; }
        .ht-inset-grouped .ht-row { margin: 0 16px; }
        .ht-index { position: absolute; right: 2px; top: 50%; transform: translateY(-50%); display: flex; flex-direction: column; font-size: 11px; color: #0a64d8; }
        """

    /// The page's own script: the stream in, the inputs out, and the
    /// key-to-paint latencies (`window.htLatencies`, milliseconds: a key
    /// pressed to the frame after its patch was applied).
    static let script = #"""
        "use strict";
        const table = new HeadlessTableHTML(document.querySelector(".ht-table"));
        const titleLine = document.getElementById("ht-title"), statusLine = document.getElementById("ht-status");
        const sent = new Map();
        let seq = 0, ignoredScroll = null, scrollInFlight = false, scrollSentAt = 0, lastScrollSent = null;
        window.htLatencies = [];
        window.htMessages = 0;

        function url(path) { return path + "?token=" + encodeURIComponent(TOKEN) + "&session=" + encodeURIComponent(SESSION); }
        // Inputs go one after the other, each when the one before was answered
        // (fetches on several connections could arrive in another order). A
        // search waiting to go sends the field's text as it is when it goes.
        let queue = Promise.resolve(), searchQueued = false;
        function post(input) {
          const time = performance.now();
          if (input.type === "search") { if (searchQueued) return; searchQueued = true; }
          queue = queue.then(() => {
            if (input.type === "search") { searchQueued = false; const search = field(); input.text = search ? search.value : ""; }
            input.seq = ++seq;
            sent.set(seq, { type: input.type, time: time });
            return fetch(url("/input"), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(input) })
              .then((response) => {
                if (response.ok) return;
                sent.delete(input.seq);
                if (input.type === "scroll") scrollInFlight = false;
                return response.text().then((text) => { statusLine.textContent = text; });
              });
          }).catch(() => { scrollInFlight = false; statusLine.textContent = "the server does not answer"; });
        }
        function field() { return table.root.querySelector(".ht-search"); }

        // The grid: a whole number of rows, as tall as the window allows.
        function layout() {
          const grid = table.grid;
          const top = grid.getBoundingClientRect().top;
          const room = window.innerHeight - top - statusLine.offsetHeight;
          const rows = Math.max(1, Math.floor(room / ROW));
          grid.style.height = rows * ROW + "px";
          return rows * ROW;
        }
        function resized() { post({ type: "resize", height: layout() }); }

        // The server's scroll position, unless the page scrolled itself.
        function scrollAsTheServerSays() {
          const want = Number(table.grid.getAttribute("data-scroll-top")) || 0;
          if (Math.abs(table.grid.scrollTop - want) >= 1) { ignoredScroll = want; table.grid.scrollTop = want; }
        }
        // One scroll at a time: the next when the last was answered (or after a
        // second without an answer: a stream reconnecting answers nothing).
        function sendScroll() {
          const top = table.grid.scrollTop;
          if ((scrollInFlight && performance.now() - scrollSentAt < 1000) || top === lastScrollSent) return;
          scrollInFlight = true;
          scrollSentAt = performance.now();
          lastScrollSent = top;
          post({ type: "scroll", top: top });
        }
        function bind() {
          table.grid.addEventListener("scroll", () => {
            if (ignoredScroll !== null && Math.abs(table.grid.scrollTop - ignoredScroll) < 1) { ignoredScroll = null; return; }
            ignoredScroll = null;
            sendScroll();
          });
          const search = field();
          if (search) search.addEventListener("input", () => post({ type: "search" }));
          layout();
        }
        table.onReset = bind;
        bind();

        document.addEventListener("keydown", (event) => {
          const search = field();
          if (search && event.target === search) {
            if (event.key === "Enter" || event.key === "ArrowDown") { event.preventDefault(); table.grid.focus(); }
            else if (event.key === "Escape" && search.value !== "") { search.value = ""; post({ type: "search" }); }
            return;
          }
          const keys = { ArrowUp: "up", ArrowDown: "down", PageUp: "pageUp", PageDown: "pageDown", Home: "home", End: "end" };
          if (event.ctrlKey || event.metaKey || event.altKey) return;
          if (keys[event.key]) { event.preventDefault(); post({ type: "key", key: keys[event.key] }); }
          else if (event.key === "Delete") { event.preventDefault(); post({ type: "delete" }); }
          else if (event.key === "/" && search) { event.preventDefault(); search.focus(); }
        });
        window.addEventListener("resize", resized);

        const events = new EventSource(url("/events"));
        events.onmessage = (event) => {
          const message = JSON.parse(event.data);
          window.htMessages += 1;
          if (message.html != null) { table.apply([{ op: "reset", html: message.html }]); scrollInFlight = false; lastScrollSent = null; }
          if (message.ops) table.apply(message.ops);
          if (message.title != null) { titleLine.textContent = message.title; }
          if (message.status != null) { statusLine.textContent = message.status || HELP; }
          const answered = message.seq != null ? sent.get(message.seq) : null;
          if (answered) sent.delete(message.seq);
          if (answered && answered.type === "scroll") {
            scrollInFlight = false;
            if (table.grid.scrollTop !== lastScrollSent) sendScroll();
          } else {
            scrollAsTheServerSays();
          }
          if (answered && answered.type === "key") {
            // Painted: the frame after the patch was applied.
            requestAnimationFrame(() => setTimeout(() => window.htLatencies.push(performance.now() - answered.time), 0));
          }
        };
        events.onerror = () => { if (events.readyState === EventSource.CLOSED) statusLine.textContent = "the session has ended: reload the page"; };
        resized();
        table.grid.focus();
        """#
}
