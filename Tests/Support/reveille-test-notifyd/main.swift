// A recording org.freedesktop.Notifications server for Reveille's end-to-end tests.
//
//   reveille-test-notifyd --record FILE [--capabilities actions,body,...]
//
// Appends one JSON object per event to FILE: {"event":"notify", "id", "summary", "body",
// "actions", "hints", "timeout", "appName", "icon", "replacesID", "time"} and
// {"event":"closed", "id", "reason"}. The interface io.github.reveille.TestNotifications
// on /org/freedesktop/Notifications lets a test press a button (InvokeAction) or close a
// notification (Close) the way a person or the server would.
import Foundation
import ReveilleBus

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

struct Options: Sendable {
    var recordPath = ""
    var capabilities = ["actions", "body", "body-markup", "action-icons", "persistence"]

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--record": recordPath = iterator.next() ?? ""
            case "--capabilities": capabilities = (iterator.next() ?? "").split(separator: ",").map(String.init)
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

    let capabilities: [String]
    let record: FileHandle

    init(options: Options) throws {
        capabilities = options.capabilities
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
            write(["event": "notify", "id": id, "appName": args[0].string ?? "", "replacesID": replaces,
                   "icon": args[2].string ?? "", "summary": args[3].string ?? "", "body": args[4].string ?? "",
                   "actions": args[5].array?.compactMap(\.string) ?? [],
                   "hints": (args[6].dictionary ?? [:]).mapValues(json), "timeout": args[7].int64 ?? 0])
            call.reply([.uint32(id)])
        case ("CloseNotification", let args):
            closed(args.first?.uint32 ?? 0, reason: 3)
            call.reply()
        case ("GetCapabilities", _):
            call.reply([.strings(capabilities)])
        case ("GetServerInformation", _):
            call.reply([.string("reveille-test-notifyd"), .string("Reveille"), .string("1.0"), .string("1.2")])
        case ("InvokeAction", let args):
            let id = args[0].uint32 ?? 0
            write(["event": "action", "id": id, "key": args[1].string ?? ""])
            try? bus.emitSignal(path: path, interface: interface, name: "ActionInvoked",
                                arguments: [.uint32(id), args[1]])
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
