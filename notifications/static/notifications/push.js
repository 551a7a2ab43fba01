/* Web push on the settings page: register the service worker, subscribe this browser with
   the server's VAPID key, and send the subscription to the server (or take it back). */
(function () {
  "use strict";
  var section = document.getElementById("push");
  if (!section || section.dataset.ready !== "yes") { return; }
  var status = document.getElementById("push-status");
  var on = document.getElementById("push-on");
  var off = document.getElementById("push-off");
  function say(text) { if (status) { status.textContent = text; } }
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    say("This browser cannot receive web push.");
    on.disabled = true; off.disabled = true;
    return;
  }
  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) { return decodeURIComponent(match[1]); }
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }
  function post(url, body) {
    return fetch(url, {method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()}})
      .then(function (response) { return response.json(); });
  }
  function key(base64) {
    var padded = (base64 + "===".slice((base64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }
  function registration() {
    return navigator.serviceWorker.register(section.dataset.worker, {scope: "/"})
      .then(function () { return navigator.serviceWorker.ready; });
  }
  on.addEventListener("click", function () {
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") { say("Notifications are blocked for this site."); return null; }
      return registration().then(function (reg) {
        return reg.pushManager.subscribe({userVisibleOnly: true,
          applicationServerKey: key(section.dataset.key)});
      }).then(function (subscription) {
        return post(section.dataset.subscribe, subscription.toJSON());
      }).then(function (answer) {
        say(answer.ok ? "Push is on for this browser." : answer.message);
      });
    }).catch(function (error) { say("Could not turn push on: " + error.message); });
  });
  off.addEventListener("click", function () {
    registration().then(function (reg) { return reg.pushManager.getSubscription(); })
      .then(function (subscription) {
        if (!subscription) { say("Push was not on for this browser."); return null; }
        var endpoint = subscription.endpoint;
        return subscription.unsubscribe().then(function () {
          return post(section.dataset.unsubscribe, {endpoint: endpoint});
        }).then(function () { say("Push is off for this browser."); });
      }).catch(function (error) { say("Could not turn push off: " + error.message); });
  });
})();
