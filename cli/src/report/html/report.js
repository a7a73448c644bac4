"use strict";
(function () {
  // Times: the UTC text is in the page; shown in the viewer's local time when JS runs.
  function pad(n) { return String(n).padStart(2, "0"); }
  function local(d) {
    var off = -d.getTimezoneOffset(), a = Math.abs(off);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " +
      pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + " " +
      (off >= 0 ? "+" : "-") + pad(Math.floor(a / 60)) + ":" + pad(a % 60);
  }
  document.querySelectorAll("time[datetime]").forEach(function (t) {
    var d = new Date(t.getAttribute("datetime"));
    if (!isNaN(d.getTime())) {
      t.title = t.textContent;
      t.textContent = local(d);
    }
  });

  // Problems: Down/Up and j/k move between the problem lines of every file, in page order.
  var lines = Array.prototype.slice.call(document.querySelectorAll(".src .line.error, .src .line.warning"));
  var current = -1;
  function focusLine(i) {
    if (i < 0 || i >= lines.length) return;
    if (current >= 0) lines[current].classList.remove("current");
    current = i;
    var el = lines[i];
    el.classList.add("current");
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "center" });
    var status = document.getElementById("nav-status");
    if (status) {
      status.textContent = "problem line " + (i + 1) + " of " + lines.length + ": " +
        el.closest(".src").getAttribute("data-file") + " line " + el.getAttribute("data-line");
    }
  }
  lines.forEach(function (el, i) {
    el.addEventListener("focus", function () {
      if (current !== i) {
        if (current >= 0) lines[current].classList.remove("current");
        current = i;
        el.classList.add("current");
      }
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || lines.length === 0) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var step = 0;
    if (e.key === "ArrowDown" || e.key === "j") step = 1;
    else if (e.key === "ArrowUp" || e.key === "k") step = -1;
    if (!step) return;
    e.preventDefault();
    focusLine(current < 0 ? (step > 0 ? 0 : lines.length - 1)
      : Math.min(lines.length - 1, Math.max(0, current + step)));
  });
  document.querySelectorAll("a[data-goto]").forEach(function (a) {
    a.addEventListener("click", function (e) {
      var target = document.getElementById(a.getAttribute("data-goto"));
      var i = lines.indexOf(target);
      if (i >= 0) {
        e.preventDefault();
        focusLine(i);
        history.replaceState(null, "", "#" + target.id);
      }
    });
  });
  document.documentElement.classList.add("js");
})();
