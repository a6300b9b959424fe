#pragma once
#include <string.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#endif
#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#include <wayland-client.h>
#endif

// On X11, asks the window manager to keep `widget`'s window above the others, on every
// workspace, and to draw attention to it (EWMH _NET_WM_STATE and _NET_WM_DESKTOP requests).
// GTK 4 dropped gtk_window_set_keep_above and gtk_window_stick, and writes _NET_WM_STATE itself
// just before it maps a window, so the requests go once it is mapped: call it on "map".
// Elsewhere (Wayland) it does nothing: there the window is an ordinary toplevel, presented.
static inline void reveille_alert_keep_above_everywhere(GtkWidget *widget) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(widget));
    if (surface == NULL || !GDK_IS_X11_SURFACE(surface)) return;
    Display *display = gdk_x11_display_get_xdisplay(gdk_surface_get_display(surface));
    Window window = gdk_x11_surface_get_xid(surface);
    Window root = DefaultRootWindow(display);
    Atom state = XInternAtom(display, "_NET_WM_STATE", False);
    Atom requests[][3] = {
        // _NET_WM_STATE_ADD (1), one or two states.
        {state, XInternAtom(display, "_NET_WM_STATE_ABOVE", False), XInternAtom(display, "_NET_WM_STATE_STICKY", False)},
        {state, XInternAtom(display, "_NET_WM_STATE_DEMANDS_ATTENTION", False), 0},
        // Every workspace.
        {XInternAtom(display, "_NET_WM_DESKTOP", False), 0, 0},
    };
    for (int i = 0; i < 3; i++) {
        XEvent event = {0};
        event.xclient.type = ClientMessage;
        event.xclient.window = window;
        event.xclient.message_type = requests[i][0];
        event.xclient.format = 32;
        event.xclient.data.l[0] = i < 2 ? 1 : (long)0xFFFFFFFFUL;
        event.xclient.data.l[1] = i < 2 ? (long)requests[i][1] : 1;
        event.xclient.data.l[2] = (long)requests[i][2];
        event.xclient.data.l[3] = 1; // from an application
        XSendEvent(display, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &event);
    }
    XFlush(display);
#else
    (void)widget;
#endif
}

// On X11, asks the window manager not to give `widget`'s window the focus when it is mapped
// (EWMH: a _NET_WM_USER_TIME of 0 means "do not focus on map"), so a person typing elsewhere
// keeps typing there; call it once the window is realized, before it is shown. GTK 4 dropped
// gtk_window_set_focus_on_map, which did this. Elsewhere (Wayland) it does nothing: there a
// compositor gives a new window the focus only with an activation token, which the alert has not.
static inline void reveille_alert_no_focus_on_map(GtkWidget *widget) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(widget));
    if (surface == NULL || !GDK_IS_X11_SURFACE(surface)) return;
    gdk_x11_surface_set_user_time(surface, 0);
#else
    (void)widget;
#endif
}

#ifdef GDK_WINDOWING_WAYLAND
// KWin's kde_lockscreen_overlay_v1 (plasma-wayland-protocols, "Allow surfaces over the
// lockscreen"), described here from its specification: request 0 `allow(object wl_surface)`,
// request 1 `destroy` (a destructor). No header of it is packaged in Debian 12.
static const struct wl_interface *reveille_lockscreen_overlay_types[] = { &wl_surface_interface };
static const struct wl_message reveille_lockscreen_overlay_requests[] = {
    { "allow", "o", reveille_lockscreen_overlay_types },
    { "destroy", "", NULL },
};
static const struct wl_interface reveille_lockscreen_overlay_interface = {
    "kde_lockscreen_overlay_v1", 1, 2, reveille_lockscreen_overlay_requests, 0, NULL,
};

struct reveille_overlay_global { uint32_t name; };

static void reveille_overlay_global_added(void *data, struct wl_registry *registry, uint32_t name,
                                          const char *interface, uint32_t version) {
    (void)registry; (void)version;
    if (strcmp(interface, reveille_lockscreen_overlay_interface.name) == 0) ((struct reveille_overlay_global *)data)->name = name;
}

static void reveille_overlay_global_removed(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}

static const struct wl_registry_listener reveille_overlay_registry_listener = {
    reveille_overlay_global_added, reveille_overlay_global_removed,
};
#endif

// Whether the compositor offers this process kde_lockscreen_overlay_v1 (KWin offers it only to
// a program an installed .desktop file names with X-KDE-Wayland-Interfaces listing it); with
// `surface` (a toplevel's, after its role and before its first buffer), asks that it may show
// over the lock screen. Its own event queue and one round trip: GTK's queue is not touched.
// 0: offered (and asked); 1: not offered; -1: not a Wayland display.
static inline int reveille_lockscreen_overlay(GdkDisplay *display, GdkSurface *surface) {
#ifdef GDK_WINDOWING_WAYLAND
    if (display == NULL || !GDK_IS_WAYLAND_DISPLAY(display)) return -1;
    struct wl_display *wayland = gdk_wayland_display_get_wl_display(display);
    struct wl_event_queue *queue = wl_display_create_queue(wayland);
    struct wl_display *wrapper = wl_proxy_create_wrapper(wayland);
    wl_proxy_set_queue((struct wl_proxy *)wrapper, queue);
    struct wl_registry *registry = wl_display_get_registry(wrapper);
    struct reveille_overlay_global global = {0};
    wl_registry_add_listener(registry, &reveille_overlay_registry_listener, &global);
    wl_display_roundtrip_queue(wayland, queue);
    int offered = global.name != 0;
    if (offered && surface != NULL && GDK_IS_WAYLAND_SURFACE(surface)) {
        struct wl_proxy *overlay = wl_proxy_marshal_flags((struct wl_proxy *)registry, WL_REGISTRY_BIND,
                                                          &reveille_lockscreen_overlay_interface, 1, 0, global.name,
                                                          reveille_lockscreen_overlay_interface.name, 1, NULL);
        if (overlay != NULL) {
            wl_proxy_marshal_flags(overlay, 0, NULL, 1, 0, gdk_wayland_surface_get_wl_surface(surface));
            wl_proxy_marshal_flags(overlay, 1, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        }
        wl_display_flush(wayland);
    }
    wl_registry_destroy(registry);
    wl_proxy_wrapper_destroy(wrapper);
    wl_event_queue_destroy(queue);
    return offered ? 0 : 1;
#else
    (void)display; (void)surface;
    return -1;
#endif
}

#ifdef GDK_WINDOWING_WAYLAND
static void reveille_overlay_on_first_layout(GdkSurface *surface, int width, int height, gpointer data) {
    (void)width; (void)height; (void)data;
    g_signal_handlers_disconnect_by_func(surface, (gpointer)reveille_overlay_on_first_layout, NULL);
    reveille_lockscreen_overlay(gdk_surface_get_display(surface), surface);
}
#endif

// On Wayland, asks that `window` may show over the lock screen where the compositor offers
// kde_lockscreen_overlay_v1 (KWin): at its surface's first layout, which comes after GTK gave it
// the toplevel role and before it draws the first buffer, the one moment KWin takes the request.
// Call once realized, before it is shown. Elsewhere it does nothing.
static inline void reveille_alert_over_lock_screen(GtkWidget *window) {
#ifdef GDK_WINDOWING_WAYLAND
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (surface == NULL || !GDK_IS_WAYLAND_SURFACE(surface)) return;
    g_signal_connect(surface, "layout", G_CALLBACK(reveille_overlay_on_first_layout), NULL);
#else
    (void)window;
#endif
}
