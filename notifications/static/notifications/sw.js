/* Word Duel's service worker: shows a pushed notice, opens its page when clicked.
   The payload is the server's PushPayload (notifications/schemas.py): kind, title, body,
   url, tag. */
self.addEventListener("push", function (event) {
  var notice = {title: "Word Duel", body: "", url: "/", tag: "wordduel"};
  try { if (event.data) { notice = event.data.json(); } } catch (error) { /* keep the default */ }
  event.waitUntil(self.registration.showNotification(notice.title, {
    body: notice.body, tag: notice.tag, data: {url: notice.url}, renotify: true,
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true})
    .then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url === url && "focus" in windows[i]) { return windows[i].focus(); }
      }
      return self.clients.openWindow(url);
    }));
});
