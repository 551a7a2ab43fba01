from django.contrib import admin

from notifications.models import Delivery, Notice, NotificationSettings, PushSubscription


@admin.register(Notice)
class NoticeAdmin(admin.ModelAdmin):
    list_display = ["key", "member", "kind", "created_at", "dispatched_at"]
    list_filter = ["kind"]
    readonly_fields = [f.name for f in Notice._meta.fields]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["notice", "channel", "status", "due_at", "sent_at", "attempts"]
    list_filter = ["channel", "status"]
    readonly_fields = [f.name for f in Delivery._meta.fields]


admin.site.register(NotificationSettings)


@admin.register(PushSubscription)
class PushSubscriptionAdmin(admin.ModelAdmin):
    list_display = ["member", "user_agent", "created_at", "last_sent_at"]
    readonly_fields = ["endpoint", "p256dh", "auth"]
