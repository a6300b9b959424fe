#pragma once
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#endif

// On X11, asks the window manager to keep `widget`'s window above the others, on every
// workspace, and to draw attention to it (EWMH _NET_WM_STATE, _NET_WM_DESKTOP). GTK 4 dropped
// gtk_window_set_keep_above and gtk_window_stick. Call it on "realize" (the properties a window
// manager reads when the window maps) and on "map" (the requests one honours once it is mapped).
// Elsewhere (Wayland) it does nothing: there the window is an ordinary toplevel, presented.
static inline void reveille_alert_keep_above_everywhere(GtkWidget *widget) {
#ifdef GDK_WINDOWING_X11
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(widget));
    if (surface == NULL || !GDK_IS_X11_SURFACE(surface)) return;
    Display *display = gdk_x11_display_get_xdisplay(gdk_surface_get_display(surface));
    Window window = gdk_x11_surface_get_xid(surface);
    Atom state = XInternAtom(display, "_NET_WM_STATE", False);
    Atom desktop = XInternAtom(display, "_NET_WM_DESKTOP", False);
    Atom wanted[3] = {
        XInternAtom(display, "_NET_WM_STATE_ABOVE", False),
        XInternAtom(display, "_NET_WM_STATE_STICKY", False),
        XInternAtom(display, "_NET_WM_STATE_DEMANDS_ATTENTION", False),
    };
    unsigned long everyDesktop = 0xFFFFFFFFUL;
    if (!gtk_widget_get_mapped(widget)) {
        XChangeProperty(display, window, state, XA_ATOM, 32, PropModeReplace, (unsigned char *)wanted, 3);
        XChangeProperty(display, window, desktop, XA_CARDINAL, 32, PropModeReplace, (unsigned char *)&everyDesktop, 1);
        return;
    }
    Window root = DefaultRootWindow(display);
    for (int i = 0; i < 3; i += 2) {
        XEvent event = {0};
        event.xclient.type = ClientMessage;
        event.xclient.window = window;
        event.xclient.message_type = state;
        event.xclient.format = 32;
        event.xclient.data.l[0] = 1; // _NET_WM_STATE_ADD
        event.xclient.data.l[1] = (long)wanted[i];
        event.xclient.data.l[2] = i == 0 ? (long)wanted[1] : 0;
        event.xclient.data.l[3] = 1; // from an application
        XSendEvent(display, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &event);
    }
    XEvent move = {0};
    move.xclient.type = ClientMessage;
    move.xclient.window = window;
    move.xclient.message_type = desktop;
    move.xclient.format = 32;
    move.xclient.data.l[0] = (long)everyDesktop;
    move.xclient.data.l[1] = 1;
    XSendEvent(display, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &move);
    XFlush(display);
#else
    (void)widget;
#endif
}
