/* Member pickers: suggest approved members as an organiser types into a username field
   (input[data-member-picker]), from /api/organise/members/?q=. The suggestions fill the
   field's <datalist>; the field stays a plain username field, checked by the form, so
   nothing depends on this script. */
(function () {
  "use strict";
  var ENDPOINT = "/api/organise/members/?q=";
  var timers = new WeakMap();

  function fill(list, results) {
    list.replaceChildren();
    results.forEach(function (member) {
      var option = document.createElement("option");
      option.value = member.username;
      option.label = member.name;
      list.appendChild(option);
    });
  }

  function suggest(input) {
    var list = document.getElementById(input.getAttribute("list") || input.dataset.memberList);
    if (!list) { return; }
    var prefix = input.value.trim();
    fetch(ENDPOINT + encodeURIComponent(prefix), {credentials: "same-origin",
                                                  headers: {Accept: "application/json"}})
      .then(function (response) { return response.ok ? response.json() : {results: []}; })
      .then(function (answer) {
        /* An answer for what the field no longer holds (a slow one for an earlier prefix,
           or for the empty field on focus) is dropped: the newest prefix's answer stands. */
        if (input.value.trim() === prefix) { fill(list, answer.results || []); }
      })
      .catch(function () { /* no suggestions: the field still takes a username */ });
  }

  document.querySelectorAll("[data-member-picker]").forEach(function (input) {
    input.addEventListener("input", function () {
      clearTimeout(timers.get(input));
      timers.set(input, setTimeout(function () { suggest(input); }, 150));
    });
    input.addEventListener("focus", function () { suggest(input); }, {once: true});
    var target = input.dataset.appendTo && document.getElementById(input.dataset.appendTo);
    if (target) {
      /* A helper beside a list of usernames: a picked name joins the list. */
      input.addEventListener("change", function () {
        var name = input.value.trim();
        if (!name) { return; }
        target.value = target.value.replace(/\s*$/, "") + (target.value.trim() ? "\n" : "") + name;
        input.value = "";
      });
    }
  });
  document.querySelectorAll("[data-picker-only]").forEach(function (el) { el.hidden = false; });
})();
