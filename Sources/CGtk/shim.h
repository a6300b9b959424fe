#pragma once
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
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
