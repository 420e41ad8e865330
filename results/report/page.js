// The explorer's search: filter the dialog list by id; Enter opens the
// first dialog left. Everything else on the page works without script
// (a dialog opens through its #anchor, with CSS :target).
(function () {
  var box = document.getElementById("search");
  var items = Array.prototype.slice.call(document.querySelectorAll("#dlist li"));
  var count = document.getElementById("shown");
  if (!box) return;
  function filter() {
    var q = box.value.trim().toLowerCase(), n = 0;
    items.forEach(function (li) {
      var hit = q === "" || li.getAttribute("data-id").toLowerCase().indexOf(q) >= 0;
      li.classList.toggle("hide", !hit);
      if (hit) n++;
    });
    count.textContent = n + " of " + items.length;
  }
  box.addEventListener("input", filter);
  box.addEventListener("keydown", function (e) {
    if (e.key !== "Enter") return;
    var first = items.filter(function (li) { return !li.classList.contains("hide"); })[0];
    if (first) location.hash = first.querySelector("a").getAttribute("href");
  });
  filter();
})();
