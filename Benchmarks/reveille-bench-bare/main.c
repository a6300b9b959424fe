// reveille-bench-bare: the floor for "due instant -> Notify", measured by reveille-bench in the
// same run as the agent: what a program doing only that does. For each due instant given
// (nanoseconds since 1970, one per argument), in order: an absolute CLOCK_REALTIME timerfd
// wakes it, and libnotify shows a critical notification titled "bare-INDEX" with a Stop and a
// Snooze button, as Reveille's alert is. No event loop, no D-Bus of its own.
//
// With --hop first, the design's floor: the notification ("hop-INDEX") is shown from a second
// thread running its own GMainContext, handed over as an idle source, as the agent's loop hands
// it to its notification thread; the main thread waits meanwhile, as the agent's loop does.
#include <libnotify/notify.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void ignore_action(NotifyNotification *notification, char *action, gpointer data) {
    (void)notification; (void)action; (void)data;
}

static const char *prefix = "bare";

/// Shows the critical notification PREFIX-INDEX with a Stop and a Snooze button; 0 on success.
static int show(int index) {
    char summary[32];
    snprintf(summary, sizeof summary, "%s-%d", prefix, index);
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
    return 0;
}

/// A show handed to the notification thread, and its outcome.
typedef struct {
    int index, status;
    gboolean done;
    GMutex lock;
    GCond finished;
} Job;

static gboolean run_job(gpointer data) {
    Job *job = data;
    int status = show(job->index);
    g_mutex_lock(&job->lock);
    job->status = status;
    job->done = TRUE;
    g_cond_signal(&job->finished);
    g_mutex_unlock(&job->lock);
    return G_SOURCE_REMOVE;
}

/// The notification thread: libnotify started on its own context, which it then runs.
static gpointer notification_thread(gpointer context) {
    g_main_context_push_thread_default(context);
    if (!notify_init("reveille-bench-bare")) exit(1);
    g_main_loop_run(g_main_loop_new(context, FALSE));
    return NULL;
}

int main(int argc, char **argv) {
    int first = 1;
    GMainContext *context = NULL;
    if (argc > 1 && strcmp(argv[1], "--hop") == 0) {
        first = 2;
        prefix = "hop";
        context = g_main_context_new();
        g_thread_unref(g_thread_new("notifications", notification_thread, context));
    } else if (!notify_init("reveille-bench-bare")) {
        return 1;
    }
    int timer = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    if (timer < 0) { perror("timerfd_create"); return 1; }
    for (int index = first; index < argc; index++) {
        long long due = atoll(argv[index]);
        struct itimerspec spec = { .it_value = { .tv_sec = due / 1000000000LL, .tv_nsec = due % 1000000000LL } };
        if (timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, NULL) != 0) { perror("timerfd_settime"); return 1; }
        uint64_t expirations;
        if (read(timer, &expirations, sizeof expirations) != sizeof expirations) { perror("read"); return 1; }
        if (context == NULL) {
            if (show(index - first) != 0) return 1;
            continue;
        }
        Job job = { .index = index - first };
        g_mutex_init(&job.lock);
        g_cond_init(&job.finished);
        GSource *source = g_idle_source_new();
        g_source_set_callback(source, run_job, &job, NULL);
        g_source_attach(source, context);
        g_source_unref(source);
        g_mutex_lock(&job.lock);
        while (!job.done) g_cond_wait(&job.finished, &job.lock);
        g_mutex_unlock(&job.lock);
        g_cond_clear(&job.finished);
        g_mutex_clear(&job.lock);
        if (job.status != 0) return 1;
    }
    return 0;
}
