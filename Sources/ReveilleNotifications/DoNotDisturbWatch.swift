import CGLib
import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleLoop

/// Reads one notification server's Do Not Disturb state where that server keeps it
/// (`DoNotDisturbSource`) and tells each change. A state it cannot read counts as off: the
/// server then shows what it is sent, as far as Reveille can know.
@GLibActor
package final class DoNotDisturbWatch {
    private let source: DoNotDisturbSource
    private let bus: BusConnection
    private let logger: Logger
    private let onChange: @GLibActor (Bool) -> Void
    private var state = false
    private var subscriptions: [UInt32] = []
    private var settings: GSettingsBoolean?
    private var file: FileMonitor?
    private var poll: UInt32?
    /// Seconds between two readings of a state the server announces no change of (mako's modes).
    package static let pollSeconds: UInt32 = 3

    package init(source: DoNotDisturbSource, bus: BusConnection, logger: Logger, onChange: @escaping @GLibActor (Bool) -> Void) {
        self.source = source
        self.bus = bus
        self.logger = logger
        self.onChange = onChange
        start()
    }

    /// A watch that goes stops following: its subscriptions would outlive it on the bus.
    isolated deinit { stop() }

    /// Stops following: signals, monitors and polls end.
    package func stop() {
        for id in subscriptions { bus.unsubscribe(id) }
        subscriptions = []
        settings = nil
        file = nil
        polling(false)
    }

    /// Whether to read again every few seconds a state no signal announces (mako's): only
    /// while an alarm rings, when it matters.
    package func polling(_ on: Bool) {
        guard case .makoModes = source else { return }
        if on, poll == nil {
            pollNow()
        } else if !on, let poll {
            MainLoopSources.remove(poll)
            self.poll = nil
        }
    }

    private func pollNow() {
        read()
        poll = MainLoopSources.after(milliseconds: Self.pollSeconds * 1000) { [weak self] in self?.pollNow() }
    }

    private func set(_ on: Bool) {
        guard on != state else { return }
        state = on
        onChange(on)
    }

    private func start() {
        switch source {
        case .none, .makoModes:
            break
        case .gSettings(let schema, let key, let onWhen):
            settings = GSettingsBoolean(schema: schema, key: key) { [weak self] value in self?.set(value == onWhen) }
            if let value = settings?.value { set(value == onWhen) } else { logger.info("no GSettings schema \(schema) with \(key): Do Not Disturb not followed") }
        case .busProperty(let interface, let path, let name):
            subscriptions.append(bus.subscribe(sender: NotificationClient.busName, interface: "org.freedesktop.DBus.Properties",
                                               name: "PropertiesChanged", path: path) { [weak self] signal in
                guard signal.arguments.first?.string == interface,
                      let value = signal.arguments.count > 1 ? signal.arguments[1].dictionary?[name]?.int64 : nil else { return }
                self?.set(value != 0)
            })
        case .xfconf(let channel, let property):
            subscriptions.append(bus.subscribe(sender: Self.xfconf, interface: Self.xfconf, name: nil, path: "/org/xfce/Xfconf") {
                [weak self] signal in
                guard signal.arguments.count >= 2, signal.arguments[0].string == channel, signal.arguments[1].string == property else { return }
                switch signal.name {
                case "PropertyChanged": self?.set((signal.arguments.count > 2 ? signal.arguments[2].int64 : nil) ?? 0 != 0)
                case "PropertyRemoved": self?.set(false)
                default: break
                }
            })
        case .swayncSignal:
            subscriptions.append(bus.subscribe(sender: NotificationClient.busName, interface: NotificationClient.busName,
                                               name: "OnDndToggle", path: NotificationClient.path) { [weak self] signal in
                if let value = signal.arguments.first?.int64 { self?.set(value != 0) }
            })
        case .lxqtConfig:
            let path = Self.lxqtConfigPath()
            file = FileMonitor(path: path) { [weak self] in self?.read() }
        }
        read()
    }

    /// Reads the state now (the signals tell only changes).
    private func read() {
        switch source {
        case .none, .gSettings:
            break
        case .busProperty(let interface, let path, let name):
            ask(NotificationClient.busName, path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)]) {
                $0.first?.int64.map { $0 != 0 }
            }
        case .xfconf(let channel, let property):
            ask(Self.xfconf, "/org/xfce/Xfconf", Self.xfconf, "GetProperty", [.string(channel), .string(property)]) {
                $0.first?.int64.map { $0 != 0 }
            }
        case .swayncSignal:
            ask(NotificationClient.busName, NotificationClient.path, NotificationClient.busName, "GetDnd", []) {
                $0.first?.int64.map { $0 != 0 }
            }
        case .makoModes:
            ask(NotificationClient.busName, "/fr/emersion/Mako", "fr.emersion.Mako", "ListModes", []) {
                $0.first?.array.map { DoNotDisturbSource.makoModesMeanDoNotDisturb($0.compactMap(\.string)) }
            }
        case .lxqtConfig:
            set(DoNotDisturbSource.lxqtMeansDoNotDisturb(KeyFile(path: Self.lxqtConfigPath())?.string("General", "doNotDisturb")))
        }
    }

    /// Asks a peer for the state; an error (the key was never set, the peer is gone) means off.
    private func ask(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Variant],
                     _ state: @escaping ([Variant]) -> Bool?) {
        bus.call(destination: destination, path: path, interface: interface, method: method, arguments: arguments,
                 timeoutMilliseconds: 5000, autoStart: interface == Self.xfconf) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let values): self.set(state(values) ?? false)
            case .failure: self.set(false)
            }
        }
    }

    package static let xfconf = "org.xfce.Xfconf"

    package static func lxqtConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (environment["XDG_CONFIG_HOME"] ?? ((environment["HOME"] ?? "") + "/.config")) + "/lxqt/notifications.conf"
    }
}

extension DoNotDisturbSource {
    /// mako's Do Not Disturb is a mode the user's config makes invisible, by convention named so.
    package static func makoModesMeanDoNotDisturb(_ modes: [String]) -> Bool { modes.contains("do-not-disturb") }

    /// `doNotDisturb` as Qt writes a boolean in LXQt's settings.
    package static func lxqtMeansDoNotDisturb(_ value: String?) -> Bool { value?.lowercased() == "true" || value == "1" }
}

/// One boolean GSettings key, read and followed (its `changed::KEY` signal, on this loop).
@GLibActor
package final class GSettingsBoolean {
    /// `GSettings*`, owned.
    nonisolated(unsafe) private let settings: UnsafeMutablePointer<GSettings>
    private let key: String

    /// `nil` when the schema or key is not installed (`g_settings_new` would abort).
    package init?(schema: String, key: String, onChange: @escaping @GLibActor (Bool) -> Void) {
        guard let source = g_settings_schema_source_get_default(),
              let found = g_settings_schema_source_lookup(source, schema, 1) else { return nil }
        defer { g_settings_schema_unref(found) }
        guard g_settings_schema_has_key(found, key) != 0, let settings = g_settings_new(schema) else { return nil }
        self.settings = settings
        self.key = key
        let box = CallbackBox({ @GLibActor () -> Void in onChange(g_settings_get_boolean(settings, key) != 0) })
        typealias Changed = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
        let changed: Changed = { _, _, userData in
            let handler = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { handler() }
        }
        g_signal_connect_data(UnsafeMutableRawPointer(settings), "changed::\(key)", unsafeBitCast(changed, to: GCallback.self),
                              box.retainedPointer, { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
        // GSettings sends `changed` only for keys read at least once.
        _ = g_settings_get_boolean(settings, key)
    }

    package var value: Bool { g_settings_get_boolean(settings, key) != 0 }

    deinit { g_object_unref(UnsafeMutableRawPointer(settings)) }
}
