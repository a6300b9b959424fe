import Foundation

/// A GTK application's widgets read and used through AT-SPI, as a screen reader reads them:
/// the session's bus activates the accessibility bus (at-spi2-core's launcher), and Debian's
/// python3-gi with the Atspi typelib (gir1.2-atspi-2.0) walks the application's tree.
public struct AccessibleTree {
    /// One accessible object: its role (`push button`, `label`, `spin button`), its name
    /// (a label's text, a button's label, a control's accessible name), whether it is
    /// checked or pressed (switches, toggle buttons: GTK 4.8 says pressed), selected (a list's
    /// row), sensitive or focused, and a field's text (`text` and `spin button` objects only).
    public struct Node: Decodable, CustomStringConvertible {
        public var role: String
        public var name: String
        public var checked: Bool
        public var selected: Bool
        public var sensitive: Bool
        public var focused: Bool
        public var text: String?
        public var showing: Bool
        /// How deep in the application's tree (the application is 0).
        public var depth: Int
        /// Where it is on the screen (x, y, width, height), when asked for (`nodes(withExtents:)`);
        /// of an object that does not show, what its toolkit says (GTK 4.8 says none shows).
        public var extents: [Int]?
        /// `extents` as a rectangle of the screen.
        public var area: TestSession.Window? {
            guard let e = extents, e.count == 4, e[2] > 0, e[3] > 0 else { return nil }
            return TestSession.Window(id: name, x: e[0], y: e[1], width: e[2], height: e[3])
        }
        public var description: String { "\(role) \(name.debugDescription)\(checked ? " (checked)" : "")" }
    }

    let session: TestSession
    /// The application's name on the accessibility bus (its program name).
    let application: String

    /// Makes the session's bus able to start the accessibility bus, before any application asks.
    public static func prepare(_ session: TestSession) throws {
        let launcher = "/usr/libexec/at-spi-bus-launcher"
        guard FileManager.default.isExecutableFile(atPath: launcher) else {
            throw Subprocess.Failure("reading a window through AT-SPI needs \(launcher) (Debian: at-spi2-core)")
        }
        guard TestSession.python3Imports("gi") else {
            throw Subprocess.Failure("reading a window through AT-SPI needs /usr/bin/python3's gi (Debian: python3-gi, gir1.2-atspi-2.0)")
        }
        try "[D-BUS Service]\nName=org.a11y.Bus\nExec=\(launcher)\n"
            .write(toFile: session.serviceDirectory + "/org.a11y.Bus.service", atomically: true, encoding: .utf8)
        // Started now, as a desktop session has it running: an application's start is then its own
        // (the first client waits while the bus's launcher starts it and its registry).
        _ = try AccessibleTree(session, application: "").run(["dump"])
    }

    public init(_ session: TestSession, application: String) {
        self.session = session
        self.application = application
    }

    /// Every object of the application's windows, depth first; none while it is not on the bus.
    /// `withExtents`: and where each that shows is on the screen.
    public func nodes(withExtents: Bool = false) throws -> [Node] {
        let result = try run(["dump"] + (withExtents ? ["extents"] : []))
        return try result.split(separator: "\n").map { try JSONDecoder().decode(Node.self, from: Data($0.utf8)) }
    }

    /// The objects inside the first one with `role` and `name` (a window, a page of a stack).
    public func nodes(inside role: String, _ name: String) throws -> [Node] {
        Self.nodes(of: try nodes(), inside: role, name) ?? []
    }

    /// The objects of `all` (one reading) inside the first one with `role` and `name`; nil when there is none.
    public static func nodes(of all: [Node], inside role: String, _ name: String) -> [Node]? {
        guard let start = all.firstIndex(where: { $0.role == role && $0.name == name }) else { return nil }
        return Array(all[(start + 1)...].prefix { $0.depth > all[start].depth })
    }

    /// The names of the objects with `role`.
    public func names(_ role: String) throws -> [String] { try nodes().filter { $0.role == role }.map(\.name) }

    /// Runs the first action (click, toggle, activate) of the `index`th object with `role` and `name`.
    public func press(_ role: String, _ name: String, index: Int = 0) throws {
        _ = try run(["press", role, name, String(index)])
    }

    /// Sets the value of the object with `role` and `name`: a spin button's number, an entry's text.
    public func set(_ role: String, _ name: String, to value: String) throws {
        _ = try run(["set", role, name, value])
    }

    /// Selects the child named `item` of the object with `role` and `name` (a list box's row),
    /// through AT-SPI's Selection, as a screen reader's user picks one.
    public func select(_ role: String, _ name: String, item: String) throws {
        _ = try run(["select", role, name, item])
    }

    private func run(_ arguments: [String]) throws -> String {
        let result = try Subprocess.run("/usr/bin/python3", ["-c", Self.script, application] + arguments, environment: session.environment)
        guard result.status == 0 else {
            throw Subprocess.Failure("AT-SPI \(arguments.joined(separator: " ")) on \(application): \(result.stderr)")
        }
        return result.stdout
    }

    /// The walker: `dump` prints a JSON line per object (`dump extents`: with where it is); `press ROLE NAME N`, `set ROLE NAME VALUE`
    /// and `select ROLE NAME ITEM` find the object and act on it, exit status 1 when there is none.
    static let script = #"""
        import json, sys, warnings, gi
        warnings.simplefilter("ignore")  # the Atspi typelib's deprecations, on stderr
        gi.require_version("Atspi", "2.0")
        from gi.repository import Atspi

        application, command = sys.argv[1], sys.argv[2]
        extents = command == "dump" and sys.argv[3:] == ["extents"]

        def walk(node, found, depth=0):
            # A row the window replaces as it is read is gone: left out, as if read a moment later.
            try:
                states = node.get_state_set()
                # One name per role whatever the release: at-spi2-core 2.5x renamed PUSH_BUTTON to
                # BUTTON ("button"), which 2.46 calls "push button"; GTK 4.10 and later give a
                # toggle button its own role, which GTK 4.8 gave as a push button that is pressed
                # or not ("checked" below says which, either way); GTK's group is a "panel" in
                # GTK 4.8 and a "grouping" in GTK 4.18.
                role = node.get_role_name() or ""
                role = {"button": "push button", "toggle button": "push button", "grouping": "panel"}.get(role, role)
                fields = {"role": role, "name": node.get_name() or "",
                          "checked": states.contains(Atspi.StateType.CHECKED) or states.contains(Atspi.StateType.PRESSED),
                          "selected": states.contains(Atspi.StateType.SELECTED),
                          "sensitive": states.contains(Atspi.StateType.SENSITIVE),
                          "focused": states.contains(Atspi.StateType.FOCUSED),
                          "showing": states.contains(Atspi.StateType.SHOWING), "depth": depth}
                # GTK 4.8 says of no widget that it shows, yet tells where each is.
                if extents and node.get_component_iface() is not None:
                    box = node.get_component_iface().get_extents(Atspi.CoordType.SCREEN)
                    fields["extents"] = [box.x, box.y, box.width, box.height]
                if fields["role"] in ("text", "spin button"):
                    text = node.get_text_iface()
                    # Called through the interface's class: from at-spi2-core 2.5x the interface
                    # object is the accessible itself, whose own get_text() takes no range.
                    fields["text"] = Atspi.Text.get_text(text, 0, Atspi.Text.get_character_count(text)) if text is not None else None
                children = [node.get_child_at_index(i) for i in range(node.get_child_count())]
            except gi.repository.GLib.GError:
                return
            found.append((node, fields))
            for child in children:
                if child is not None:
                    walk(child, found, depth + 1)

        found = []
        desktop = Atspi.get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            if app is not None and app.get_name() == application:
                walk(app, found)
        if not found:
            # Not there yet (starting) or gone: an empty tree, which a wait asks again.
            sys.exit(0)

        if command == "dump":
            for _, fields in found:
                print(json.dumps(fields))
            sys.exit(0)

        role, name = sys.argv[3], sys.argv[4]
        matches = [node for node, fields in found if fields["role"] == role and fields["name"] == name]
        if command == "press":
            index = int(sys.argv[5])
            if len(matches) <= index:
                sys.exit("no %s %r (#%d) among %s" % (role, name, index, sorted({f["role"] + " " + repr(f["name"]) for _, f in found})))
            action = matches[index].get_action_iface()
            if action is None or Atspi.Action.get_n_actions(action) == 0:
                sys.exit("%s %r has no action" % (role, name))
            Atspi.Action.do_action(action, 0)
        elif command == "set":
            if not matches:
                sys.exit("no %s %r" % (role, name))
            node, value = matches[0], sys.argv[5]
            numeric = node.get_value_iface()
            if numeric is not None:
                Atspi.Value.set_current_value(numeric, float(value))
            else:
                Atspi.EditableText.set_text_contents(node.get_editable_text_iface(), value)
        elif command == "select":
            if not matches:
                sys.exit("no %s %r" % (role, name))
            node, item = matches[0], sys.argv[5]
            names = [node.get_child_at_index(i).get_name() for i in range(node.get_child_count())]
            if item not in names:
                sys.exit("no %r in %s %r: %s" % (item, role, name, names))
            if not Atspi.Selection.select_child(node.get_selection_iface(), names.index(item)):
                sys.exit("%s %r did not select %r" % (role, name, item))
        """#
}

/// What an application had screen readers say, as Orca hears it: AT-SPI's `object:announcement`
/// events from the application (GTK 4.14 and later send them for `gtk_accessible_announce`,
/// libadwaita 1.6 and later for each toast), heard from `start` on by a listener the session
/// stops with itself.
public struct Announcements {
    let file: String

    /// Starts listening for what `application` announces; returns once the listener is
    /// registered with the accessibility bus's registry.
    public static func start(_ session: TestSession, application: String) throws -> Announcements {
        let file = session.directory + "/announcements-\(UUID().uuidString.prefix(8)).jsonl"
        let child = try Subprocess.start("/usr/bin/python3", ["-c", script, application, file], environment: session.environment,
                                         stderr: file + ".log")
        session.adopt("announcement listener", child)
        let listening = Announcements(file: file)
        _ = try session.eventually(timeout: 20, "the announcement listener registered (\(file).log)") {
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("\"listening\"") ? true : nil
        }
        return listening
    }

    /// The texts announced so far, in order.
    public func heard() -> [String] {
        let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n")
        return lines.compactMap { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  event["type"] == "object:announcement" else { return nil }
            return event["text"]
        }
    }

    static let script = #"""
        import json, sys, warnings, gi
        warnings.simplefilter("ignore")
        gi.require_version("Atspi", "2.0")
        from gi.repository import Atspi

        application, path = sys.argv[1], sys.argv[2]
        out = open(path, "a", buffering=1)

        def heard(event):
            try:
                app = event.source.get_application()
                if app is None or app.get_name() != application:
                    return
            except Exception:
                return
            data = event.any_data
            out.write(json.dumps({"type": event.type, "text": data if isinstance(data, str) else str(data)}) + "\n")

        listener = Atspi.EventListener.new(heard)
        listener.register("object:announcement")
        out.write(json.dumps({"type": "listening"}) + "\n")
        Atspi.event_main()
        """#
}
