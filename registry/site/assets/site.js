// Search as you type and filters over assets/index-data.js. Without this
// script the page shows the full list.
(function () {
  "use strict";
  var index = window.spiritSiteIndex;
  var form = document.getElementById("filters");
  var list = document.getElementById("list");
  if (!index || !form || !list) { return; }
  var q = document.getElementById("q");
  var sel = {
    channel: document.getElementById("f-channel"),
    host: document.getElementById("f-host"),
    review: document.getElementById("f-review"),
    keyword: document.getElementById("f-keyword")
  };
  var count = document.getElementById("count");
  var none = document.getElementById("none");
  var cards = {};
  Array.prototype.forEach.call(list.children, function (li) { cards[li.getAttribute("data-id")] = li; });
  var rows = index.extensions.map(function (e) {
    var text = [e.displayName, e.id, e.packageName, e.description, e.author || ""].concat(e.keywords).join("\n").toLowerCase();
    return { ext: e, text: text, keywords: e.keywords.map(function (k) { return k.toLowerCase(); }) };
  });
  function matches(r, words) {
    var e = r.ext;
    if (sel.channel.value && !Object.prototype.hasOwnProperty.call(e.latest, sel.channel.value)) { return false; }
    if (sel.host.value && e.hosts.indexOf(sel.host.value) < 0) { return false; }
    if (sel.review.value && e.reviewStatus !== sel.review.value) { return false; }
    if (sel.keyword.value && r.keywords.indexOf(sel.keyword.value) < 0) { return false; }
    for (var i = 0; i < words.length; i++) {
      if (r.text.indexOf(words[i]) < 0) { return false; }
    }
    return true;
  }
  function update() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (r) {
      var li = cards[r.ext.id];
      if (!li) { return; }
      var ok = matches(r, words);
      li.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown === rows.length ? rows.length + " extensions" : shown + " of " + rows.length + " extensions";
    none.hidden = shown !== 0;
  }
  form.hidden = false;
  form.addEventListener("submit", function (ev) { ev.preventDefault(); });
  q.addEventListener("input", update);
  Object.keys(sel).forEach(function (k) { sel[k].addEventListener("change", update); });
  update();
}());
