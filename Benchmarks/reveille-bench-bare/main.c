// reveille-bench-bare: the floor for "due instant -> Notify", measured by reveille-bench in the
// same run as the agent: what a program doing only that does. For each due instant given
// (nanoseconds since 1970, one per argument), in order: an absolute CLOCK_REALTIME timerfd
// wakes it, and libnotify shows a critical notification titled "bare-INDEX" with a Stop and a
// Snooze button, as Reveille's alert is. No event loop, no D-Bus of its own.
#include <libnotify/notify.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void ignore_action(NotifyNotification *notification, char *action, gpointer data) {
    (void)notification; (void)action; (void)data;
}

int main(int argc, char **argv) {
    if (!notify_init("reveille-bench-bare")) return 1;
    int timer = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    if (timer < 0) { perror("timerfd_create"); return 1; }
    for (int index = 1; index < argc; index++) {
        long long due = atoll(argv[index]);
        struct itimerspec spec = { .it_value = { .tv_sec = due / 1000000000LL, .tv_nsec = due % 1000000000LL } };
        if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, NULL) != 0) { perror("timerfd_settime"); return 1; }
        uint64_t expirations;
        if (read(timer, &expirations, sizeof expirations) != sizeof expirations) { perror("read"); return 1; }
        char summary[32];
        snprintf(summary, sizeof summary, "bare-%d", index - 1);
        NotifyNotification *notification = notify_notification_new(summary, "Due now", "alarm-clock");
        notify_notification_set_urgency(notification, NOTIFY_URGENCY_CRITICAL);
        notify_notification_set_timeout(notification, NOTIFY_EXPIRES_NEVER);
        notify_notification_add_action(notification, "stop", "Stop", ignore_action, NULL, NULL);
        notify_notification_add_action(notification, "secondary", "Snooze", ignore_action, NULL, NULL);
        GError *error = NULL;
        if (!notify_notification_show(notification, &error)) {
            fprintf(stderr, "reveille-bench-bare: %s\n", error->message);
            return 1;
        }
        g_object_unref(notification);
    }
    return 0;
}
