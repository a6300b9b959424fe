// A recording org.freedesktop.Notifications server for Reveille's end-to-end tests.
//
//   reveille-test-notifyd --record FILE [--profile gnome|kde|dunst|xfce|mako|plain] [--capabilities actions,body,...]
//
// A profile answers GetServerInformation and GetCapabilities as that server does on Debian 12
// (GNOME Shell by default) and closes a notification after an action where that server does.
// Appends one JSON object per event to FILE: {"event":"notify", "id", "summary", "body",
// "actions", "hints", "timeout", "appName", "icon", "replacesID", "time"} and
// {"event":"closed", "id", "reason"}. The interface io.github.reveille.TestNotifications
// on /org/freedesktop/Notifications lets a test press a button (InvokeAction) or close a
// notification (Close) the way a person or the server would.
import Foundation
import ReveilleBus
import ReveilleLoop

let introspection = """
<node>
  <interface name="org.freedesktop.Notifications">
    <method name="Notify">
      <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
      <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" direction="in"/></method>
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
    <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  </interface>
  <interface name="io.github.reveille.TestNotifications">
    <method name="InvokeAction"><arg type="u" direction="in"/><arg type="s" direction="in"/></method>
    <method name="Close"><arg type="u" direction="in"/><arg type="u" direction="in"/></method>
  </interface>
</node>
"""

let path = "/org/freedesktop/Notifications"
let interface = "org.freedesktop.Notifications"

/// How a real server presents itself and what it does after an action.
struct Profile: Sendable {
    var name: String
    var vendor: String
    var version: String
    var capabilities: [String]
    /// Closes the notification after an action (reason 2), unless it is resident.
    var closesAfterAction: Bool
    var keepsResident: Bool

    static let all: [String: Profile] = [
        "gnome": Profile(name: "gnome-shell", vendor: "GNOME", version: "43.9",
                         capabilities: ["actions", "body", "body-markup", "icon-static", "persistence", "sound"],
                         closesAfterAction: true, keepsResident: true),
        "kde": Profile(name: "Plasma", vendor: "KDE", version: "5.27.5",
                       capabilities: ["body", "body-hyperlinks", "body-markup", "body-images", "icon-static", "actions",
                                      "persistence", "inline-reply", "x-kde-urls", "x-kde-origin-name",
                                      "x-kde-display-appname", "inhibitions"],
                       closesAfterAction: true, keepsResident: true),
        "dunst": Profile(name: "dunst", vendor: "knopwob", version: "1.9.0",
                         capabilities: ["actions", "body", "body-hyperlinks", "body-markup", "icon-static",
                                        "x-dunst-stack-tag", "x-canonical-private-synchronous"],
                         closesAfterAction: false, keepsResident: true),
        "xfce": Profile(name: "Xfce Notify Daemon", vendor: "Xfce", version: "0.7.3",
                        capabilities: ["action-icons", "actions", "body", "body-hyperlinks", "body-markup", "icon-static",
                                       "sound", "x-canonical-private-icon-only"],
                        closesAfterAction: true, keepsResident: false),
        "mako": Profile(name: "mako", vendor: "emersion", version: "1.7.1",
                        capabilities: ["actions", "body", "body-markup", "icon-static"],
                        closesAfterAction: true, keepsResident: false),
        "plain": Profile(name: "reveille-test-notifyd", vendor: "Reveille", version: "1.0", capabilities: ["body"],
                         closesAfterAction: false, keepsResident: true),
    ]
}

struct Options: Sendable {
    var recordPath = ""
    var profile = Profile.all["gnome"]!

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--record": recordPath = iterator.next() ?? ""
            case "--profile":
                let name = iterator.next() ?? ""
                guard let profile = Profile.all[name] else {
                    fail("unknown profile \(name); known: \(Profile.all.keys.sorted().joined(separator: ", "))")
                }
                self.profile = profile
            case "--capabilities": profile.capabilities = (iterator.next() ?? "").split(separator: ",").map(String.init)
            default: fail("unknown argument \(argument)")
            }
        }
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("reveille-test-notifyd: \(message)\n".utf8))
    exit(2)
}

/// Turns a hint's value into JSON: numbers, strings, booleans and arrays of them.
func json(_ value: Variant) -> Any {
    switch value {
    case .bool(let flag): return flag
    case .string(let text), .objectPath(let text): return text
    case .double(let number): return number
    case .variant(let inner): return json(inner)
    case .array(_, let items), .tuple(let items): return items.map(json)
    case .dictEntry(let key, let item): return [json(key), json(item)]
    default: return value.int64 ?? "\(value)"
    }
}

@GLibActor
final class Server {
    let bus: BusConnection
    var nextID: UInt32 = 1
    var open: Set<UInt32> = []
    /// The open notifications that asked to stay after an action (`resident`).
    var resident: Set<UInt32> = []

    let profile: Profile
    let record: FileHandle

    init(options: Options) throws {
        profile = options.profile
        // Append: a restarted server adds to the record of the one before.
        if !options.recordPath.isEmpty, !FileManager.default.fileExists(atPath: options.recordPath) {
            FileManager.default.createFile(atPath: options.recordPath, contents: nil)
        }
        guard !options.recordPath.isEmpty, let record = FileHandle(forWritingAtPath: options.recordPath) else {
            fail("--record FILE is required and must be writable")
        }
        record.seekToEndOfFile()
        self.record = record
        bus = try BusConnection.session()
        try bus.register(path: path, introspectionXML: introspection) { [unowned self] call in self.handle(call) }
        bus.ownName(interface, replace: true) { event in
            if event == .lost {
                FileHandle.standardError.write(Data("reveille-test-notifyd: lost \(interface)\n".utf8))
                exit(1)
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
        }
    }

    func write(_ object: [String: Any]) {
        var entry = object
        entry["time"] = Date().timeIntervalSince1970
        guard let data = try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]) else { return }
        record.write(data + Data("\n".utf8))
    }

    func closed(_ id: UInt32, reason: UInt32) {
        guard open.remove(id) != nil else { return }
        resident.remove(id)
        write(["event": "closed", "id": id, "reason": reason])
        try? bus.emitSignal(path: path, interface: interface, name: "NotificationClosed",
                            arguments: [.uint32(id), .uint32(reason)])
    }

    func handle(_ call: MethodCall) {
        switch (call.method, call.arguments) {
        case ("Notify", let args) where args.count == 8:
            let replaces = args[1].uint32 ?? 0
            let id = replaces != 0 && open.contains(replaces) ? replaces : { defer { nextID += 1 }; return nextID }()
            open.insert(id)
            if (args[6].dictionary ?? [:])["resident"] == .bool(true) { resident.insert(id) } else { resident.remove(id) }
            write(["event": "notify", "id": id, "appName": args[0].string ?? "", "replacesID": replaces,
                   "icon": args[2].string ?? "", "summary": args[3].string ?? "", "body": args[4].string ?? "",
                   "actions": args[5].array?.compactMap(\.string) ?? [],
                   "hints": (args[6].dictionary ?? [:]).mapValues(json), "timeout": args[7].int64 ?? 0])
            call.reply([.uint32(id)])
        case ("CloseNotification", let args):
            closed(args.first?.uint32 ?? 0, reason: 3)
            call.reply()
        case ("GetCapabilities", _):
            call.reply([.strings(profile.capabilities)])
        case ("GetServerInformation", _):
            call.reply([.string(profile.name), .string(profile.vendor), .string(profile.version), .string("1.2")])
        case ("InvokeAction", let args):
            let id = args[0].uint32 ?? 0
            write(["event": "action", "id": id, "key": args[1].string ?? ""])
            try? bus.emitSignal(path: path, interface: interface, name: "ActionInvoked",
                                arguments: [.uint32(id), args[1]])
            if profile.closesAfterAction && !(profile.keepsResident && resident.contains(id)) { closed(id, reason: 2) }
            call.reply()
        case ("Close", let args):
            closed(args[0].uint32 ?? 0, reason: args[1].uint32 ?? 2)
            call.reply()
        default:
            call.fail(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.method)")
        }
    }
}

@GLibActor enum Running { static var server: Server? }

let options = Options(Array(CommandLine.arguments.dropFirst()))
Task { @GLibActor in
    do {
        Running.server = try Server(options: options)
    } catch {
        FileHandle.standardError.write(Data("reveille-test-notifyd: \(error)\n".utf8))
        exit(1)
    }
}
dispatchMain()
