extension HTMLRenderer {
    /// A small script (plain JavaScript, no dependencies) that applies the
    /// renderer's operations to a page: include it, then
    ///
    /// ```js
    /// const table = new HeadlessTableHTML(document.querySelector(".ht-table"));
    /// source.onmessage = (event) => table.apply(JSON.parse(event.data));   // [HTMLOperation] as JSON
    /// ```
    ///
    /// It keeps a map from keys to nodes, so an operation costs O(1) DOM
    /// work; `replace` recycles the node (its attributes and children are set
    /// from the new markup). The search field's value is left alone while it
    /// has the focus (a person is typing; the page sends the text). After a
    /// `reset`, `table.root` and `table.grid` are the new nodes and
    /// `table.onReset` (if set) is called. Markup goes in through a
    /// `<template>`, which runs no script.
    public static let script = #"""
        class HeadlessTableHTML {
          constructor(root) { this.root = root; this.onReset = null; this.index(); }
          index() {
            this.keys = new Map();
            for (const node of this.root.querySelectorAll("[data-key]")) this.keys.set(node.getAttribute("data-key"), node);
            this.grid = this.root.querySelector(".ht-grid");
            this.top = this.grid.querySelector('[data-spacer="top"]');
            this.bottom = this.grid.querySelector('[data-spacer="bottom"]');
          }
          static parse(html) {
            const template = document.createElement("template");
            template.innerHTML = html;
            return template.content.firstElementChild;
          }
          anchor(key) { return (key != null && this.keys.get(key)) || this.bottom; }
          part(selector, html, place) {
            const old = this.root.querySelector(":scope > " + selector);
            if (html == null) { if (old) old.remove(); return; }
            const node = HeadlessTableHTML.parse(html);
            if (old) old.replaceWith(node); else place(node);
          }
          apply(operations) {
            for (const op of operations) {
              switch (op.op) {
              case "remove": {
                const node = this.keys.get(op.key);
                if (node) { node.remove(); this.keys.delete(op.key); }
                break;
              }
              case "insert": {
                const node = HeadlessTableHTML.parse(op.html);
                this.grid.insertBefore(node, this.anchor(op.before));
                this.keys.set(node.getAttribute("data-key"), node);
                break;
              }
              case "move": {
                const node = this.keys.get(op.key);
                if (node) this.grid.insertBefore(node, this.anchor(op.before));
                break;
              }
              case "replace": {
                const node = this.keys.get(op.key);
                if (!node) break;
                const from = HeadlessTableHTML.parse(op.html);
                for (const a of Array.from(node.attributes)) if (!from.hasAttribute(a.name)) node.removeAttribute(a.name);
                for (const a of Array.from(from.attributes)) if (node.getAttribute(a.name) !== a.value) node.setAttribute(a.name, a.value);
                node.replaceChildren(...from.childNodes);
                this.keys.delete(op.key);
                this.keys.set(node.getAttribute("data-key"), node);
                break;
              }
              case "spacers":
                this.top.style.height = op.top + "px";
                this.bottom.style.height = op.bottom + "px";
                break;
              case "grid":
                this.grid.setAttribute("aria-rowcount", String(op.rowCount));
                this.grid.setAttribute("data-scroll-top", String(op.scrollTop));
                break;
              case "search": {
                const field = this.root.querySelector(":scope > .ht-search");
                if (op.html != null && field) {
                  const value = HeadlessTableHTML.parse(op.html).getAttribute("value") || "";
                  field.setAttribute("value", value);
                  if (document.activeElement !== field && field.value !== value) field.value = value;
                } else {
                  this.part(".ht-search", op.html, (node) => this.root.prepend(node));
                }
                break;
              }
              case "scopes":
                this.part(".ht-scopes", op.html, (node) => this.grid.before(node));
                break;
              case "index":
                this.part(".ht-index", op.html, (node) => this.grid.after(node));
                break;
              case "reset": {
                const node = HeadlessTableHTML.parse(op.html);
                this.root.replaceWith(node);
                this.root = node;
                this.index();
                if (this.onReset) this.onReset();
                break;
              }
              }
            }
          }
        }
        """#
}
