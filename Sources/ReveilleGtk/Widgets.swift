// libadwaita's header includes GTK's: clang gives each GTK declaration to whichever of the two
// modules it meets first, so GTK's names are imported through both (no libadwaita call is here).
import CAdwaita
import CGtk
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import ReveilleSystem
import ReveilleWords

/// The one file where GTK's C API is used: widgets made from GtkBuilder files, read and
/// changed through small typed handles, their signals delivered as Swift closures on the loop.

/// A GtkBuilder file's objects, by id. Rows are made from one text read once, many times.
@GLibActor
package struct UIFile {
    /// Why a UI file could not be read: its name and GtkBuilder's own words.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    private let builder: OpaquePointer

    /// Builds the objects `xml` describes, their translatable strings in the user's language.
    package init(_ xml: String, name: String) throws(Failure) {
        builder = gtk_builder_new()
        gtk_builder_set_translation_domain(builder, Localization.domain)
        var error: UnsafeMutablePointer<GError>?
        guard gtk_builder_add_from_string(builder, xml, -1, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_error_free(error)
            throw Failure(description: "\(name): \(message)")
        }
        // Every button is named by its label, for screen readers (GTK 4.8 names a labelled
        // button by its label twice, mnemonic and all: "_Save Save").
        var objects = gtk_builder_get_objects(builder)
        let first = objects
        while let node = objects {
            let widget = Widget(node.pointee.data)
            if widget.isA(gtk_button_get_type()), case let label = widget.text, !label.isEmpty {
                widget.nameForScreenReaders(label)
            }
            if widget.isA(gtk_list_box_get_type()) { widget.focusesChosenRowOnMnemonic() }
            objects = node.pointee.next
        }
        g_slist_free(first)
    }

    /// The widget with `id`; a UI file that lacks it is a programming error, found by any start.
    package func widget(_ id: String) -> Widget {
        guard let object = gtk_builder_get_object(builder, id) else { fatalError("the UI file has no object \(id)") }
        return Widget(UnsafeMutableRawPointer(object))
    }

    /// Lets the builder go: its widgets live on in their parents (a toplevel, in GTK's list).
    package func release() { g_object_unref(UnsafeMutableRawPointer(builder)) }

    /// Registers a GResource bundle (glib-compile-resources' output) with GIO, for `text(at:)`.
    package static func register(bundle: [UInt8]) throws(Failure) {
        let bytes = bundle.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let resource = g_resource_new_from_data(bytes, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_error_free(error)
            throw Failure(description: "the compiled UI files: \(message)")
        }
        g_resources_register(resource)
    }

    /// The text of the file at `path` in a registered bundle (`/io/github/…/window.ui`).
    package static func text(at path: String) throws(Failure) -> String {
        var error: UnsafeMutablePointer<GError>?
        guard let bytes = g_resources_lookup_data(path, GResourceLookupFlags(rawValue: 0), &error) else {  // G_RESOURCE_LOOKUP_FLAGS_NONE, which the release build does not see through GTK's module
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_error_free(error)
            throw Failure(description: "\(path): \(message)")
        }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        let data = g_bytes_get_data(bytes, &size)
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(size)), as: UTF8.self)
    }
}

/// A widget, as a handle; what it can do depends on its class, as in GTK.
@GLibActor
package struct Widget {
    /// The GObject; for the other C wrapper (`Adwaita`, libadwaita) only.
    package let pointer: UnsafeMutableRawPointer

    fileprivate init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }

    private var gtk: UnsafeMutablePointer<GtkWidget> { pointer.assumingMemoryBound(to: GtkWidget.self) }
    /// Whether the widget is of GTK class `type` (`GTK_IS_LABEL` and its kin are macros).
    fileprivate func isA(_ type: GType) -> Bool { g_type_check_instance_is_a(pointer.assumingMemoryBound(to: GTypeInstance.self), type) != 0 }
    private func cast<T>(_ type: T.Type) -> UnsafeMutablePointer<T> { pointer.assumingMemoryBound(to: type) }

    package var isVisible: Bool {
        get { gtk_widget_get_visible(gtk) != 0 }
        nonmutating set { gtk_widget_set_visible(gtk, newValue ? 1 : 0) }
    }

    package var isSensitive: Bool {
        get { gtk_widget_get_sensitive(gtk) != 0 }
        nonmutating set { gtk_widget_set_sensitive(gtk, newValue ? 1 : 0) }
    }

    /// A label's text, or a button's label (with `_` for its mnemonic).
    package var text: String {
        get {
            let text = isA(gtk_label_get_type()) ? gtk_label_get_text(OpaquePointer(pointer)) : gtk_button_get_label(cast(GtkButton.self))
            return text.map { String(cString: $0) } ?? ""
        }
        nonmutating set {
            if isA(gtk_label_get_type()) {
                gtk_label_set_text(OpaquePointer(pointer), newValue)
            } else if isA(gtk_editable_get_type()) {
                gtk_editable_set_text(OpaquePointer(pointer), newValue)
            } else {
                gtk_button_set_label(cast(GtkButton.self), newValue)
                nameForScreenReaders(newValue)
            }
        }
    }

    /// An entry's text.
    package var editableText: String { String(cString: gtk_editable_get_text(OpaquePointer(pointer))) }

    /// A switch's or toggle button's state.
    package var isOn: Bool {
        get { isA(gtk_switch_get_type()) ? gtk_switch_get_active(OpaquePointer(pointer)) != 0 : gtk_toggle_button_get_active(cast(GtkToggleButton.self)) != 0 }
        nonmutating set {
            if isA(gtk_switch_get_type()) { gtk_switch_set_active(OpaquePointer(pointer), newValue ? 1 : 0) }
            else { gtk_toggle_button_set_active(cast(GtkToggleButton.self), newValue ? 1 : 0) }
        }
    }

    /// Has Enter in an entry or a spin button press the window's default button (Save):
    /// GTK 4.8's spin buttons have no such property of their own, their text field has.
    package func activatesDefault() {
        guard let field = gtk_editable_get_delegate(OpaquePointer(pointer)) else { return }
        gtk_text_set_activates_default(UnsafeMutableRawPointer(field).assumingMemoryBound(to: GtkText.self), 1)
    }

    /// A spin button's value, with what was typed in it and not yet committed (focus still in it).
    package var number: Int {
        get {
            gtk_spin_button_update(OpaquePointer(pointer))
            return Int(gtk_spin_button_get_value_as_int(OpaquePointer(pointer)))
        }
        nonmutating set { gtk_spin_button_set_value(OpaquePointer(pointer), Double(newValue)) }
    }

    /// A progress bar's fraction, 0 to 1.
    package var fraction: Double {
        get { gtk_progress_bar_get_fraction(OpaquePointer(pointer)) }
        nonmutating set { gtk_progress_bar_set_fraction(OpaquePointer(pointer), min(1, max(0, newValue))) }
    }

    /// A window's title.
    package var title: String {
        get { gtk_window_get_title(cast(GtkWindow.self)).map { String(cString: $0) } ?? "" }
        nonmutating set { gtk_window_set_title(cast(GtkWindow.self), newValue) }
    }

    /// The name screen readers (and AT-SPI's other clients) say for the widget: `label`
    /// without its mnemonic's underscore (a row's title; a button's action and what it acts on).
    package func nameForScreenReaders(_ label: String) {
        var value = GValue()
        g_value_init(&value, g_type_from_name("gchararray"))
        g_value_set_string(&value, label.replacing("_", with: ""))
        var property = GTK_ACCESSIBLE_PROPERTY_LABEL
        gtk_accessible_update_property_value(OpaquePointer(pointer), 1, &property, &value)
        g_value_unset(&value)
        // A mnemonic's label also labels the button (labelled-by), which GTK 4.8 adds to the name.
        gtk_accessible_reset_relation(OpaquePointer(pointer), GTK_ACCESSIBLE_RELATION_LABELLED_BY)
    }

    /// Has screen readers say `text` now, as they say a notification, where GTK can
    /// (`gtk_accessible_announce`, GTK 4.14 and later: AT-SPI's `object:announcement`).
    /// Returns whether it was said: GTK 4.8 (Debian 12) has no way to, short of moving the
    /// focus, which would take it from whatever the person is typing into.
    @discardableResult
    package func announce(_ text: String) -> Bool {
        guard let announce = Widget.gtkAnnounce else { return false }
        announce(OpaquePointer(pointer), text, 2)  // GTK_ACCESSIBLE_ANNOUNCEMENT_PRIORITY_HIGH
        return true
    }

    /// `gtk_accessible_announce`, looked up in the GTK the app runs with (the headers it is
    /// built against may be older).
    private static let gtkAnnounce: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UInt32) -> Void)? = {
        try? SharedLibrary("libgtk-4.so.1", neededBy: "the window is a GTK 4 application").function("gtk_accessible_announce")
    }()

    /// Names the buttons of the toasts this overlay shows for screen readers: the labelled one
    /// by its label (GTK 4.8 would say "_Undo Undo"), the one with an icon only `dismiss`
    /// (libadwaita 1.2 gives it no name). The toast's widgets are libadwaita's own, found by type.
    package func nameToastButtons(dismiss: String) {
        func visit(_ widget: UnsafeMutablePointer<GtkWidget>, inToast: Bool) {
            let typeName = String(cString: g_type_name_from_instance(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self)))
            let inToast = inToast || typeName == "AdwToastWidget"
            let node = Widget(UnsafeMutableRawPointer(widget))
            if inToast, node.isA(gtk_button_get_type()) {
                let label = node.text
                node.nameForScreenReaders(label.isEmpty ? dismiss : label)
            }
            var child = gtk_widget_get_first_child(widget)
            while let next = child {
                visit(next, inToast: inToast)
                child = gtk_widget_get_next_sibling(next)
            }
        }
        visit(gtk, inToast: false)
    }

    // A stack is a GtkStack (the dialog's repeat details) or an AdwViewStack (the window's
    // pages): both have the properties visible-child and visible-child-name, used by name here.

    /// A stack's shown page, by name.
    package func showPage(_ name: String) {
        var value = GValue()
        g_value_init(&value, g_type_from_name("gchararray"))
        g_value_set_string(&value, name)
        g_object_set_property(g_object(), "visible-child-name", &value)
        g_value_unset(&value)
    }

    /// The name of the page a stack shows.
    package var shownPage: String? {
        var value = GValue()
        g_value_init(&value, g_type_from_name("gchararray"))
        defer { g_value_unset(&value) }
        g_object_get_property(g_object(), "visible-child-name", &value)
        return g_value_get_string(&value).map { String(cString: $0) }
    }

    private func g_object() -> UnsafeMutablePointer<GObject> { pointer.assumingMemoryBound(to: GObject.self) }

    /// Has a stack move the focus to the page it shows when the focus was on the page it hid:
    /// a page shown other than by its switcher (a screen reader's action on a page tab) would
    /// leave the focus on a hidden control, where the keys typed next go unheard.
    package func keepsFocusOnShownPage() {
        let stack = self
        connect("notify::visible-child") {
            var value = GValue()
            g_value_init(&value, gtk_widget_get_type())
            defer { g_value_unset(&value) }
            g_object_get_property(stack.g_object(), "visible-child", &value)
            guard let page = g_value_get_object(&value) else { return }
            Widget(page).takeFocusIfLost()
        }
    }

    /// Moves the focus to the first control in this widget, when it shows and the window's focus
    /// is nowhere the person sees (on a hidden page, or none): a page's controls made sensitive
    /// after it was shown could not take the focus then.
    package func takeFocusIfLost() {
        guard gtk_widget_get_mapped(gtk) != 0, let root = gtk_widget_get_root(gtk) else { return }
        if let focus = gtk_root_get_focus(root), gtk_widget_get_mapped(focus) != 0 { return }
        _ = gtk_widget_child_focus(gtk, GTK_DIR_TAB_FORWARD)
    }

    // MARK: Lists

    // A list of choices (where alarms ring, a sound) is a list box without selection, its rows
    // activatable: GTK's selection follows the focus (a row focused by Tab or an arrow key is
    // selected), and a choice must be the person's act, Enter, Space or a click, never where the
    // focus passes. The chosen row carries the "chosen" style class (a check mark) and the
    // accessible state selected, which a screen reader says.

    /// Makes a list box a list of choices: `action` gets the index of the row the person
    /// chooses (Enter, Space, a click); the list marks it chosen first.
    package func makeChoiceList(_ action: @escaping @GLibActor (Int) -> Void) {
        gtk_list_box_set_selection_mode(OpaquePointer(pointer), GTK_SELECTION_NONE)
        let list = self
        typealias RowActivated = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let handler: RowActivated = { _, row, data in
            guard let row else { return }
            let index = Int(gtk_list_box_row_get_index(row.assumingMemoryBound(to: GtkListBoxRow.self)))
            let action = CallbackBox<@GLibActor (Int) -> Void>.from(data)
            GLibActor.assumeIsolated { action(index) }
        }
        Self.connect(pointer, "row-activated", unsafeBitCast(handler, to: GCallback.self), CallbackBox<@GLibActor (Int) -> Void> { index in
            list.chooseRow(index)
            action(index)
        })
        // Enter on a row chooses it, in a dialog too: the window would take it for its default
        // button (Save) otherwise, since a list box takes Space alone.
        typealias KeyPressed = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean
        let keyPressed: KeyPressed = { _, key, _, modifiers, box in
            let enter = [GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter].contains(Int32(key))
            let modified = modifiers.rawValue & (GDK_CONTROL_MASK.rawValue | GDK_ALT_MASK.rawValue | GDK_SHIFT_MASK.rawValue) != 0
            guard enter, !modified, let box = box?.assumingMemoryBound(to: GtkWidget.self), let root = gtk_widget_get_root(box),
                  let focus = gtk_root_get_focus(root), gtk_widget_get_parent(focus) == box else { return 0 }
            return gtk_widget_activate(focus)
        }
        let controller = gtk_event_controller_key_new()!
        g_signal_connect_data(UnsafeMutableRawPointer(controller), "key-pressed", unsafeBitCast(keyPressed, to: GCallback.self), pointer, nil, GConnectFlags(rawValue: 0))
        gtk_widget_add_controller(gtk, controller)
    }

    /// The index of a choice list's chosen row.
    package var chosenRow: Int? {
        var index = 0, child = gtk_widget_get_first_child(gtk)
        while let row = child {
            if gtk_widget_has_css_class(row, "chosen") != 0 { return index }
            index += 1
            child = gtk_widget_get_next_sibling(row)
        }
        return nil
    }

    /// Marks the row at `index` of a choice list chosen, and no other.
    package func chooseRow(_ index: Int) {
        var at = 0, child = gtk_widget_get_first_child(gtk)
        while let row = child {
            let chosen = at == index
            // The style class draws the check mark (the app's style sheet).
            if chosen { gtk_widget_add_css_class(row, "chosen") } else { gtk_widget_remove_css_class(row, "chosen") }
            // A state that may be undefined as well as true or false is an int to GTK (4.8 to 4.18).
            var value = GValue()
            g_value_init(&value, g_type_from_name("gint"))
            g_value_set_int(&value, chosen ? 1 : 0)
            var state = GTK_ACCESSIBLE_STATE_SELECTED
            gtk_accessible_update_state_value(OpaquePointer(row), 1, &state, &value)
            g_value_unset(&value)
            at += 1
            child = gtk_widget_get_next_sibling(row)
        }
    }

    /// Has a list box's mnemonic (its label's) focus its chosen row, else its first: GTK 4.8
    /// focuses none, and the arrow keys then leave the list instead of moving in it.
    fileprivate func focusesChosenRowOnMnemonic() {
        typealias Mnemonic = @convention(c) (UnsafeMutableRawPointer?, gboolean, UnsafeMutableRawPointer?) -> gboolean
        let handler: Mnemonic = { box, _, _ in
            guard let box else { return 0 }
            var child = gtk_widget_get_first_child(box.assumingMemoryBound(to: GtkWidget.self))
            while let row = child, gtk_widget_has_css_class(row, "chosen") == 0 { child = gtk_widget_get_next_sibling(row) }
            guard let row = child ?? gtk_widget_get_first_child(box.assumingMemoryBound(to: GtkWidget.self)) else { return 0 }
            return gtk_widget_grab_focus(row)
        }
        g_signal_connect_data(pointer, "mnemonic-activate", unsafeBitCast(handler, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
    }

    /// Adds a row with `text` to a choice list, named so for screen readers.
    package func appendChoice(_ text: String) {
        let label = gtk_label_new(text)
        gtk_label_set_xalign(OpaquePointer(label), 0)
        gtk_list_box_append(OpaquePointer(pointer), label)
        if let row = gtk_widget_get_parent(label) { Widget(UnsafeMutableRawPointer(row)).nameForScreenReaders(text) }
    }

    // MARK: Containers

    /// Adds `child` at the end of a list box or a box.
    package func append(_ child: Widget) {
        if isA(gtk_list_box_get_type()) { gtk_list_box_append(OpaquePointer(pointer), child.gtk) }
        else if isA(gtk_flow_box_get_type()) { appendToFlowBox(child) }
        else { gtk_box_append(cast(GtkBox.self), child.gtk) }
    }

    /// A flow box wraps each child in a focusable GtkFlowBoxChild: the child's own control (a
    /// button) takes the focus, not a second stop around it.
    private func appendToFlowBox(_ child: Widget) {
        gtk_flow_box_insert(OpaquePointer(pointer), child.gtk, -1)
        if let wrapper = gtk_widget_get_parent(child.gtk) { gtk_widget_set_focusable(wrapper, 0) }
    }

    /// Removes every child of a list box or a box but the first `kept` (a box's own label).
    package func removeAll(keepingFirst kept: Int = 0) {
        var first = gtk_widget_get_first_child(gtk)
        for _ in 0..<kept { first = first.flatMap { gtk_widget_get_next_sibling($0) } }
        while let child = first {
            first = gtk_widget_get_next_sibling(child)
            if isA(gtk_list_box_get_type()) { gtk_list_box_remove(OpaquePointer(pointer), child) }
            else if isA(gtk_flow_box_get_type()) { gtk_flow_box_remove(OpaquePointer(pointer), child) }
            else { gtk_box_remove(cast(GtkBox.self), child) }
        }
    }

    /// Removes `child` (a row) from a list box.
    package func remove(_ child: Widget) { gtk_list_box_remove(OpaquePointer(pointer), child.gtk) }

    /// Inserts `row` into a list box at `index`.
    package func insert(_ row: Widget, at index: Int) { gtk_list_box_insert(OpaquePointer(pointer), row.gtk, Int32(index)) }

    /// Where `row` is in this list box, `nil` when it is not in it.
    package func rowIndex(of row: Widget) -> Int? {
        guard gtk_widget_get_parent(row.gtk) == gtk else { return nil }
        return Int(gtk_list_box_row_get_index(row.cast(GtkListBoxRow.self)))
    }

    /// Where the window's keyboard focus is inside this widget, as the child indexes from it
    /// down to the focused widget (empty: on this widget itself); `nil` when it is elsewhere.
    package var focusPath: [Int]? {
        guard let root = gtk_widget_get_root(gtk), var focus = gtk_root_get_focus(root) else { return nil }
        var path: [Int] = []
        while focus != gtk {
            guard let parent = gtk_widget_get_parent(focus) else { return nil }
            var index = 0, child = gtk_widget_get_first_child(parent)
            while let sibling = child, sibling != focus { index += 1; child = gtk_widget_get_next_sibling(sibling) }
            path.insert(index, at: 0)
            focus = parent
        }
        return path
    }

    /// Gives the keyboard focus to the widget at `path` inside this one (as `focusPath` says
    /// it), or to this one when no focusable widget is there.
    package func focus(path: [Int]) {
        var widget: UnsafeMutablePointer<GtkWidget>? = gtk
        for index in path {
            var child = widget.flatMap { gtk_widget_get_first_child($0) }
            for _ in 0..<index { child = child.flatMap { gtk_widget_get_next_sibling($0) } }
            widget = child
        }
        if let widget, gtk_widget_get_visible(widget) != 0, gtk_widget_grab_focus(widget) != 0 { return }
        _ = gtk_widget_grab_focus(gtk)
    }

    /// A new button with `label` (`_` marks its mnemonic).
    package static func button(_ label: String) -> Widget {
        let button = Widget(UnsafeMutableRawPointer(gtk_button_new_with_mnemonic(label)))
        button.nameForScreenReaders(label)
        return button
    }

    /// A new button whose label is `text` as it is (no mnemonic: words another program gave),
    /// which GTK also gives screen readers as its name.
    package static func button(plain text: String) -> Widget {
        Widget(UnsafeMutableRawPointer(gtk_button_new_with_label(text)))
    }

    /// A new label showing `text`.
    package static func label(_ text: String) -> Widget { Widget(UnsafeMutableRawPointer(gtk_label_new(text))) }

    /// A new box laying its children out in a column (`vertical`) or a row, `spacing` apart.
    package static func box(vertical: Bool, spacing: Int) -> Widget {
        Widget(UnsafeMutableRawPointer(gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, Int32(spacing))))
    }

    /// A new toplevel window titled `title`, with Reveille's icon, `width` wide by default.
    package static func window(title: String, width: Int) -> Widget {
        let window = Widget(UnsafeMutableRawPointer(gtk_window_new()))
        gtk_window_set_title(window.cast(GtkWindow.self), title)
        gtk_window_set_icon_name(window.cast(GtkWindow.self), "io.github.reveille.Reveille")
        gtk_window_set_default_size(window.cast(GtkWindow.self), Int32(width), -1)
        return window
    }

    /// Adds the style class `name` (the theme's, as `destructive-action`, or one of `loadStyle`'s).
    package func addStyle(_ name: String) { gtk_widget_add_css_class(gtk, name) }

    /// The same margin on each of the four sides.
    package func setMargins(_ margin: Int) {
        for edge in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            edge(gtk, Int32(margin))
        }
    }

    package func setTopMargin(_ margin: Int) { gtk_widget_set_margin_top(gtk, Int32(margin)) }

    /// Centres the widget across its parent's width, at its natural width.
    package func centerHorizontally() { gtk_widget_set_halign(gtk, GTK_ALIGN_CENTER) }

    /// Has a label break its text into lines to fit.
    package func wrapsText() { gtk_label_set_wrap(OpaquePointer(pointer), 1) }

    /// Makes `child` a window's content.
    package func setChild(_ child: Widget) { gtk_window_set_child(cast(GtkWindow.self), child.gtk) }

    /// Makes `button` the window's default: what Enter presses.
    package func setDefault(_ button: Widget) { gtk_window_set_default_widget(cast(GtkWindow.self), button.gtk) }

    /// A new toggle button with `label`.
    package static func toggle(_ label: String) -> Widget {
        let toggle = Widget(UnsafeMutableRawPointer(gtk_toggle_button_new_with_label(label)))
        toggle.nameForScreenReaders(label)
        return toggle
    }

    // MARK: Windows

    /// The size of the display's first monitor, in GTK's pixels (at 2×, half the screen's).
    package static var screenSize: (width: Int, height: Int)? {
        guard let display = gdk_display_get_default(), let monitors = gdk_display_get_monitors(display),
              let first = g_list_model_get_item(monitors, 0) else { return nil }
        defer { g_object_unref(first) }
        var area = GdkRectangle()
        gdk_monitor_get_geometry(OpaquePointer(first), &area)
        return area.width > 0 && area.height > 0 ? (Int(area.width), Int(area.height)) : nil
    }

    /// The most a scrolled window grows to show what it holds (beyond, it scrolls).
    package var maxContentWidth: Int {
        get { Int(gtk_scrolled_window_get_max_content_width(OpaquePointer(pointer))) }
        nonmutating set { gtk_scrolled_window_set_max_content_width(OpaquePointer(pointer), Int32(newValue)) }
    }

    /// The most a scrolled window grows to show what it holds (beyond, it scrolls).
    package var maxContentHeight: Int {
        get { Int(gtk_scrolled_window_get_max_content_height(OpaquePointer(pointer))) }
        nonmutating set { gtk_scrolled_window_set_max_content_height(OpaquePointer(pointer), Int32(newValue)) }
    }

    package func present() { gtk_window_present(cast(GtkWindow.self)) }
    package func close() { gtk_window_close(cast(GtkWindow.self)) }
    package func grabFocus() { _ = gtk_widget_grab_focus(gtk) }

    /// Shows the window without taking the focus where the desktop allows (X11 window managers
    /// that honour `_NET_WM_USER_TIME`: mutter, KWin, xfwm4…): a person typing elsewhere as it
    /// opens keeps typing there. `present` would ask for the focus (`_NET_ACTIVE_WINDOW`, or
    /// `XSetInputFocus` without a window manager), which mutter grants to a request without a
    /// user's timestamp.
    /// `overLockScreen`: and asks that it may show over the lock screen where the compositor lets
    /// a window do so (KWin on Wayland, `kde_lockscreen_overlay_v1`; see `Application.lockScreenOverlay`).
    package func showWithoutFocus(overLockScreen: Bool = false) {
        gtk_widget_realize(gtk)
        reveille_alert_no_focus_on_map(gtk)
        if overLockScreen { reveille_alert_over_lock_screen(gtk) }
        gtk_widget_set_visible(gtk, 1)
    }

    /// Keeps the window above the others and on every workspace once it is mapped, where the
    /// platform lets a client ask (X11); elsewhere an ordinary toplevel.
    package func keepsAboveEverywhere() {
        typealias WidgetSignal = @convention(c) (UnsafeMutablePointer<GtkWidget>?, UnsafeMutableRawPointer?) -> Void
        let keepAbove: WidgetSignal = { widget, _ in reveille_alert_keep_above_everywhere(widget) }
        g_signal_connect_data(pointer, "map", unsafeBitCast(keepAbove, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
    }

    /// Makes `self` (a window) stay above `parent` and belong to it, as a dialog.
    package func setTransient(for parent: Widget) { gtk_window_set_transient_for(cast(GtkWindow.self), parent.cast(GtkWindow.self)) }

    /// Adds the window to `application`: it keeps the application's primary instance alive
    /// and is the window a second launch raises.
    package func add(to application: Application) { gtk_application_add_window(application.pointer, cast(GtkWindow.self)) }

    // MARK: Signals

    /// Calls `action` on every click of a button.
    package func onClicked(_ action: @escaping @GLibActor () -> Void) {
        connect("clicked", action)
    }

    /// Calls `action` when Enter is pressed in an entry.
    package func onActivate(_ action: @escaping @GLibActor () -> Void) {
        connect("activate", action)
    }

    /// Calls `action` with the new state when the person flips a switch or toggle button.
    package func onToggled(_ action: @escaping @GLibActor (Bool) -> Void) {
        let widget = self
        connect(isA(gtk_switch_get_type()) ? "notify::active" : "toggled") { action(widget.isOn) }
    }

    /// Calls `action` when an entry's text changes (typed, or set).
    package func onEdited(_ action: @escaping @GLibActor () -> Void) {
        connect("changed", action)
    }

    /// Calls `action` when a stack shows another page.
    package func onPageShown(_ action: @escaping @GLibActor () -> Void) {
        connect("notify::visible-child-name", action)
    }

    /// Calls `action` when the focus leaves the widget and what it holds (an entry's text).
    package func onFocusLeave(_ action: @escaping @GLibActor () -> Void) {
        let controller = gtk_event_controller_focus_new()!
        gtk_widget_add_controller(gtk, controller)
        Widget(UnsafeMutableRawPointer(controller)).connect("leave", action)
    }

    /// Has a spin button show its number with two digits, as a clock does (`07`, `05`).
    package func showsTwoDigits() {
        typealias Output = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean
        let output: Output = { spin, _ in
            guard let spin else { return 0 }
            let number = Int(gtk_spin_button_get_value_as_int(OpaquePointer(spin)))
            gtk_editable_set_text(OpaquePointer(spin), number.zeroPadded())
            return 1
        }
        g_signal_connect_data(pointer, "output", unsafeBitCast(output, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
    }

    /// Calls `action` when the window is closed (by the person, Escape, or `close()`).
    package func onCloseRequest(_ action: @escaping @GLibActor () -> Void) {
        typealias CloseRequest = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean
        let handler: CloseRequest = { _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
            return 0
        }
        Self.connect(pointer, "close-request", unsafeBitCast(handler, to: GCallback.self), CallbackBox(action))
    }

    /// Calls `pressed` with each key pressed in the window (its key value and hardware code)
    /// before the focused widget sees it (capture): `true` when it is taken there, so nothing
    /// else sees it; and `released` with each key's code as it is let go.
    package func onKey(pressed: @escaping @GLibActor (UInt32, UInt32) -> Bool, released: @escaping @GLibActor (UInt32) -> Void) {
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        typealias KeyPressed = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean
        let onPressed: KeyPressed = { _, key, code, _, data in
            let pressed = CallbackBox<@GLibActor (UInt32, UInt32) -> Bool>.from(data)
            return GLibActor.assumeIsolated { pressed(key, code) } ? 1 : 0
        }
        Self.connect(UnsafeMutableRawPointer(keys), "key-pressed", unsafeBitCast(onPressed, to: GCallback.self), CallbackBox(pressed))
        typealias KeyReleased = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> Void
        let onReleased: KeyReleased = { _, _, code, _, data in
            let released = CallbackBox<@GLibActor (UInt32) -> Void>.from(data)
            GLibActor.assumeIsolated { released(code) }
        }
        Self.connect(UnsafeMutableRawPointer(keys), "key-released", unsafeBitCast(onReleased, to: GCallback.self), CallbackBox(released))
        gtk_widget_add_controller(gtk, keys)
    }

    /// A key value's name, as GDK names it ("Return", "Escape", "s"); `nil` for none.
    package static func keyName(_ key: UInt32) -> String? { gdk_keyval_name(key).map { String(cString: $0) } }

    /// Calls `action` with whether the window is active (has the keyboard) each time that changes.
    package func onActiveChanged(_ action: @escaping @GLibActor (Bool) -> Void) {
        connect("notify::is-active") { [self] in action(gtk_window_is_active(cast(GtkWindow.self)) != 0) }
    }

    /// `signal`, whose handler takes the instance and one more pointer at most, as `action`.
    private func connect(_ signal: String, _ action: @escaping @GLibActor () -> Void) {
        typealias Handler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        // "clicked" passes (instance, data), "notify::" (instance, pspec, data): the data is the
        // last argument either way, read from where each signature puts it.
        let twoArguments: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
        }
        let threeArguments: Handler = { _, _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
        }
        let handler = signal.hasPrefix("notify::") ? unsafeBitCast(threeArguments, to: GCallback.self) : unsafeBitCast(twoArguments, to: GCallback.self)
        Self.connect(pointer, signal, handler, CallbackBox(action))
    }

    /// `g_signal_connect` (a macro) as it expands; `box` is released with the connection.
    fileprivate static func connect<Value>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback, _ box: CallbackBox<Value>) {
        g_signal_connect_data(instance, signal, handler, box.retainedPointer, { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
    }
}

/// The application (an AdwApplication, `Adwaita`): one instance per session (GApplication's D-Bus name); a second
/// launch activates the first, which raises its window, and ends.
@GLibActor
package final class Application {
    fileprivate let pointer: UnsafeMutablePointer<GtkApplication>

    /// Has GTK draw with cairo unless the person chose a renderer (`GSK_RENDERER`): the window
    /// is labels and buttons, and GTK's GL renderer first loads a GL driver, on a machine
    /// without a GPU Mesa's llvmpipe (as measured for reveille-alert: 200 ms to the first frame
    /// against 80 ms). Called before any thread starts: `setenv` is not safe beside a reader.
    package nonisolated static func preferCairoRenderer() {
        guard EnvironmentVariable.value("GSK_RENDERER") == nil else { return }
        for (key, value) in [("GSK_RENDERER", "cairo"), ("GDK_DEBUG", "gl-disable"), ("GDK_DISABLE", "gl")] { EnvironmentVariable.set(key, to: value, replacing: false) }
    }

    /// Opens GTK on the display in the environment; `false` when there is none to open.
    package static func openDisplay(programName: String) -> Bool {
        g_set_prgname(programName)
        return gtk_init_check() != 0
    }

    /// What the display offers for showing over the lock screen (one round trip to the compositor).
    package static var lockScreenOverlay: LockScreenOverlay {
        switch reveille_lockscreen_overlay(gdk_display_get_default(), nil) {
        case 0: .offered
        case 1: .notOffered
        default: .notWayland
        }
    }

    package init(id: String) {
        // libadwaita's: its start loads the platform's style, dark as the desktop prefers.
        pointer = Adwaita.application(id: id)
    }

    /// Takes the application's name on the session bus; `true` when another process holds it
    /// (this one is then the remote: `activate()` raises that one's window).
    package func register() throws(UIFile.Failure) -> Bool {
        let application = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GApplication.self)
        var error: UnsafeMutablePointer<GError>?
        guard g_application_register(application, nil, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_error_free(error)
            throw UIFile.Failure(description: message)
        }
        return g_application_get_is_remote(application) != 0
    }

    /// Adds the application's action `name` (`app.NAME` in a menu), which runs `action`.
    package func addAction(_ name: String, _ action: @escaping @GLibActor () -> Void) {
        let simple = g_simple_action_new(name, nil)!
        typealias Activate = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let handler: Activate = { _, _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
        }
        Widget.connect(UnsafeMutableRawPointer(simple), "activate", unsafeBitCast(handler, to: GCallback.self), CallbackBox(action))
        g_action_map_add_action(OpaquePointer(pointer), simple)
        g_object_unref(UnsafeMutableRawPointer(simple))
    }

    /// Calls `action` when the application is activated: at start, and by each later launch.
    package func onActivate(_ action: @escaping @GLibActor () -> Void) {
        typealias Activate = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let handler: Activate = { _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
        }
        Widget.connect(UnsafeMutableRawPointer(pointer), "activate", unsafeBitCast(handler, to: GCallback.self), CallbackBox(action))
    }

    /// Activates the application: here, or in the process that holds its name, which is told
    /// before this returns.
    package func activate() {
        let application = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GApplication.self)
        g_application_activate(application)
        if let connection = g_application_get_dbus_connection(application) {
            _ = g_dbus_connection_flush_sync(connection, nil, nil)
        }
    }

    /// Seconds on the monotonic clock GTK's events are timed by (`g_get_monotonic_time`).
    package nonisolated static var monotonicSeconds: Double { Double(g_get_monotonic_time()) / 1_000_000 }

    /// Adds `css` to every window of the display, over the theme.
    package static func loadStyle(_ css: String) {
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(gdk_display_get_default(), OpaquePointer(provider),
                                                   guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }
}
