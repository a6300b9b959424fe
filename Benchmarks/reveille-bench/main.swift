// reveille-bench: figures for Reveille against real peers (run by `make bench`).
//
// Due instant → Notify: schedules N (100) fixed alarms through the D-Bus API at instants
// 50 ms apart and measures, for each, the delay from its due instant (as the agent stores it:
// to the millisecond) to the moment the recording notification server received its Notify
// (both clocks are this machine's). Then the same for reveille-bench-bare, a C program doing
// only that (a timerfd, then libnotify), in the same session: the floor the agent is held to;
// and once more with libnotify on a thread of its own, handed each show as the agent hands it
// (`--hop`): the floor of that design, what one thread hop costs here. The three series are
// taken in turn, `REVEILLE_BENCH_ROUNDS` (3) times, and pooled.
// Due instant → first audible chunk, and Stop → silence: one alarm at a time, heard on
// the null sink's monitor through parec (10 ms chunks, timed on arrival, so each figure
// includes up to one chunk of recording latency).
//
// Large store: adds `REVEILLE_BENCH_LARGE` alarms (10,000) one Schedule call after another
// from one bus client, then times the agent's start (spawn → bus name owned) and `reveille list`.
//
// Each goal is printed with its floor, measured in the same run: the bare program for due →
// Notify; for memory, where the agent's pages come from (its executable, the libraries, anonymous
// memory) beside the recording notification server, a Swift program on the same runtime and GLib
// that does next to nothing; for `reveille list`, the CLI's own start (`reveille --version`).
import Foundation
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import ReveilleSystem
import ReveilleTestSupport
import SystemPackage

let environment = ProcessInfo.processInfo.environment
let count = Int(environment["REVEILLE_BENCH_ALARMS"] ?? "") ?? 100
let firingRounds = Int(environment["REVEILLE_BENCH_ROUNDS"] ?? "") ?? 3
let spacing = Double(environment["REVEILLE_BENCH_SPACING"] ?? "") ?? 0.05
guard spacing.isFinite, spacing >= 0.001, spacing <= 60 else {
    FileHandle.standardError.write(Data("REVEILLE_BENCH_SPACING is \(spacing) s; accepted: 0.001 to 60 seconds between alarms\n".utf8))
    exit(2)
}
let idleSeconds = Double(environment["REVEILLE_BENCH_IDLE_SECONDS"] ?? "") ?? 60
let idleAlarms = Int(environment["REVEILLE_BENCH_IDLE_ALARMS"] ?? "") ?? 1000
let largeAlarms = Int(environment["REVEILLE_BENCH_LARGE"] ?? "") ?? 10_000

let floodSeconds = Double(environment["REVEILLE_BENCH_FLOOD_SECONDS"] ?? "") ?? 10

/// What one flood of `kind` (doors.py's names) from `connections` connections that never read
/// does, in a fresh session: how late the alarm due 4 s into it is heard, how long the user's
/// `reveille stop` of another alarm takes (beside a bare round trip to the same flooded bus
/// daemon), and what the flood adds to the agent's resident memory at its peak.
func floodFigures(kind: String, connections: Int) throws -> (heard: Double, stop: Double, bus: Double, growth: Double) {
    let session = try TestSession()
    defer { session.stopAll() }
    try session.startStatusNotifierWatcher()
    try session.startAgent()
    let agent = session.agent!.pid
    let idle = residentMiB(agent)
    let other = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Other")
    let recorder = try SinkRecorder(session: session)
    defer { recorder.stop() }
    let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 4).rounded(.up))
    _ = try session.cliJSON(AlarmJSON.self, "add", String(ISO8601Local.string(from: due, in: UTCTimeZone()).prefix(19)), "--title", "Flooded")
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Support/hostile-client/doors.py").path
    // "direct-stop" floods the agent's direct line itself (where the user's stop goes).
    let directLine = DirectLine.socketPath(runtimeDirectory: FilePath(session.directory + "/runtime"),
                                           busAddress: session.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").string
    let flood = try Subprocess.start("/usr/bin/python3", [script, "flood", kind, "\(connections)", "\(floodSeconds)"],
                                     environment: session.environment.merging(["REVEILLE_DIRECT_LINE": directLine]) { $1 },
                                     stderr: session.directory + "/flood.log")
    let heard = try eventually(timeout: floodSeconds + 30, "the flooded alarm to sound") { recorder.firstAudible(after: due.addingTimeInterval(-1)) }
    let roundTrip = try medianMilliseconds(runs: 1) {
        _ = try Subprocess.run(try Subprocess.find("gdbus", package: "libglib2.0-bin"),
                               ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                "--method", "org.freedesktop.DBus.GetId"], environment: session.environment)
    }
    let stop = try medianMilliseconds(runs: 1) {
        let result = try Subprocess.run(session.binaries + "/reveille", ["stop", other.id], environment: session.environment, timeout: 60)
        guard result.status == 0 else { throw Subprocess.Failure("the user's stop under the \(kind) flood failed: \(result.stderr)") }
    }
    _ = flood.wait(timeout: floodSeconds + 60)
    return (heard.timeIntervalSince(due) * 1000, stop, roundTrip, residentMiB(agent, "VmHWM") - idle)
}

/// Floods of each door from connections that never read, in turn.
/// `REVEILLE_BENCH_FLOOD_KINDS=getall,stop` floods those doors only.
func floodsOfEachDoor() throws -> [(String, (heard: Double, stop: Double, bus: Double, growth: Double))] {
    let chosen = environment["REVEILLE_BENCH_FLOOD_KINDS"].map { Set($0.split(separator: ",").map(String.init)) }
    return try [("stop", 200), ("getall", 200), ("eventgroup", 200), ("direct-stop", 200), ("introspect", 8), ("menu", 4), ("playsound", 50)]
        .filter { chosen?.contains($0.0) ?? true }.map { kind, connections in
        FileHandle.standardError.write(Data("flooding \(kind) from \(connections) connections\n".utf8))
        return ("\(kind) ×\(connections)", try floodFigures(kind: kind, connections: connections))
    }
}

/// The floods' table.
func printFloods(_ floods: [(String, (heard: Double, stop: Double, bus: Double, growth: Double))]) {
    print("")
    print("| flood (\(Int(floodSeconds)) s, never reading) | due → audible (ms) | user's stop (ms) | bus round trip (ms) | agent growth (MiB) |")
    print("|------------------------------|--------------------|------------------|---------------------|--------------------|")
    for (label, figures) in floods {
        // Previews are sound too: under PlaySound's flood the first audible chunk is theirs.
        let cells = [label.hasPrefix("playsound") ? "(previews)" : String(format: "%.0f", figures.heard),
                     String(format: "%.0f", figures.stop), String(format: "%.0f", figures.bus),
                     String(format: "%.1f", figures.growth)]
        print("| " + label.padding(toLength: 28, withPad: " ", startingAt: 0) + " | "
              + zip(cells, [18, 16, 19, 18]).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    }
    print("targets: due → audible ≤ 50 ms; the user's stop ≤ 1,000 ms (by the agent's direct line; a new bus connection waits the round trip); growth ≤ 64 MiB")
}

/// Schedules `count` alarms far in the future through one bus connection, one call after
/// another (each answered only once it is on disk); returns the seconds it took.
@GLibActor
func scheduleMany(_ count: Int, address: String) throws -> Double {
    let bus = try BusConnection.connect(address: address)
    let far = ISO8601Local.utcString(from: Date().addingTimeInterval(30 * 86_400))
    let start = Date()
    for index in 0..<count {
        let configuration = #"{"schedule":{"fixed":"\#(far)"},"presentation":{"alert":{"title":"large-\#(index)"}}}"#
        _ = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                             interface: AgentInterface.interface, method: "Schedule",
                             arguments: [.string(""), .string(configuration), .vardict([:])], timeoutMilliseconds: 60_000, autoStart: false)
    }
    return Date().timeIntervalSince(start)
}

/// Milliseconds (median of `runs`) to read every alarm with ListPage from one connection, not
/// decoded: what any client waits for before it can show a list (the floor of `reveille list`).
@GLibActor
func timeListPages(runs: Int, address: String) throws -> Double {
    let bus = try BusConnection.connect(address: address)
    return try medianMilliseconds(runs: runs) {
        var after = ""
        repeat {
            let reply = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                         interface: AgentInterface.interface, method: "ListPage",
                                         arguments: [.string(after), .uint32(0)], timeoutMilliseconds: 60_000, autoStart: false)
            after = reply.dropFirst().first?.string ?? ""
        } while !after.isEmpty
    }
}

/// Connects `count` clients of the user's tools and subscribes each (they never read what
/// they are sent: GDBus drops signals nobody listens for).
@GLibActor
func subscribe(_ count: Int, address: String) throws -> [BusConnection] {
    try (0..<count).map { _ in
        let bus = try BusConnection.connect(address: address)
        _ = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                             interface: AgentInterface.interface, method: "Subscribe", arguments: [], timeoutMilliseconds: 60_000, autoStart: false)
        return bus
    }
}

/// Cancels `count` of the stored alarms one call after another; returns the seconds it took.
@GLibActor
func cancelMany(_ count: Int, address: String) throws -> Double {
    let bus = try BusConnection.connect(address: address)
    let list = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                interface: AgentInterface.interface, method: "List", arguments: [], timeoutMilliseconds: 60_000, autoStart: false)
    let ids = try JSONLines.decode([AlarmListing].self, from: Data((list.first?.string ?? "[]").utf8), inParallel: PosixThread.runAll).prefix(count).map(\.id)
    let start = Date()
    for id in ids {
        _ = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                             interface: AgentInterface.interface, method: "Cancel",
                             arguments: [.string(id.uuidString)], timeoutMilliseconds: 60_000, autoStart: false)
    }
    return Date().timeIntervalSince(start)
}

/// Milliseconds from spawning the agent to its first answer from the loop: a `Get` of an id
/// that does not exist, retried every millisecond while nobody owns the name, and answered
/// (NotFound) only once the store is loaded.
@GLibActor
func timeAgentStart(_ session: TestSession) throws -> (milliseconds: Double, agent: Subprocess.Child) {
    let bus = try BusConnection.connect(address: session.environment["DBUS_SESSION_BUS_ADDRESS"]!)
    let start = Date()
    let agent = try Subprocess.start(session.binaries + "/reveille-agent", [], environment: session.environment,
                                     stderr: session.agentLog)
    while true {
        do {
            _ = try bus.callSync(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                 interface: AgentInterface.interface, method: "Get",
                                 arguments: [.string("00000000")], timeoutMilliseconds: 10_000, autoStart: false)
            throw Subprocess.Failure("Get of id 00000000 found an alarm")
        } catch let error as BusError where error.name.hasPrefix(AgentInterface.errorPrefix) {
            return (Date().timeIntervalSince(start) * 1000, agent)
        } catch let error as BusError where error.isServiceMissing {}
        guard agent.isRunning else { throw Subprocess.Failure("the agent exited while starting; see \(session.agentLog)") }
        usleep(1_000)
    }
}

/// Context switches (voluntary and not) of each thread of `pid`, by thread id
/// (/proc/PID/task/*/status): each is a wakeup.
func contextSwitches(_ pid: Int32) -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var counts: [String: Int] = [:]
    for task in tasks {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
        counts[task] = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
            .compactMap { Int($0.split(separator: "\t").last ?? "") }.reduce(0, +)
    }
    return counts
}

/// Wakeups between two readings: growth of threads that lived through both, plus threads born between.
func wakeups(from before: [String: Int], to after: [String: Int]) -> Int {
    after.reduce(0) { total, entry in total + entry.value - (before[entry.key] ?? 0) }
}

/// Resident memory of `pid` in MiB (/proc/PID/status VmRSS; VmHWM for the peak so far).
func residentMiB(_ pid: Int32, _ field: String = "VmRSS") -> Double {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
}

/// What `pid`'s memory costs the machine, in MiB (/proc/PID/smaps_rollup): its private dirty
/// pages, which only it holds and no file backs, and its proportional set size (each page shared
/// with other processes counted by its share). The memory goal; RSS also counts clean pages of
/// files (code) that the kernel reclaims by itself under pressure.
func privateDirtyAndProportionalMiB(_ pid: Int32) -> (privateDirty: Double, proportional: Double) {
    let rollup = String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/smaps_rollup")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    func field(_ name: String) -> Double {
        let line = rollup.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 } ?? 0
    }
    return (field("Private_Dirty"), field("Pss"))
}

/// Resident memory of `pid` by where its pages come from (/proc/PID/smaps), in MiB: the
/// executable's own file, the shared libraries' files, and anonymous memory (heap, stacks, data written).
func residentBreakdown(_ pid: Int32) -> (executable: Double, libraries: Double, anonymous: Double) {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
    // Read to its end: a /proc file has no size, and a read sized by it stops after the first pages.
    let smaps = String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/smaps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    var file = "", sums = (executable: 0.0, libraries: 0.0, anonymous: 0.0)
    for line in smaps.split(separator: "\n") {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        if let range = fields.first, range.contains("-"), range.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            file = fields.count == 6 ? String(fields[5]).trimmingCharacters(in: .whitespaces) : ""
        } else if fields.first == "Rss:", let kilobytes = fields.dropFirst().first.flatMap({ Double($0) }) {
            let mebibytes = kilobytes / 1024
            if file == executable { sums.executable += mebibytes }
            else if file.hasPrefix("/") { sums.libraries += mebibytes }
            else { sums.anonymous += mebibytes }
        }
    }
    return sums
}

/// Median wall time of `runs` runs of `body`, in ms.
func medianMilliseconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = Date()
        try body()
        times.append(Date().timeIntervalSince(start) * 1000)
    }
    return times.sorted()[runs / 2]
}

/// Due instant → Notify of the agent for `count` alarms `spacing` apart, scheduled through the D-Bus
/// API, in ms; then the alarms are cancelled.
func agentNotifyDelays(_ session: TestSession, count: Int, round: Int) throws -> [Double] {
    let start = Date().addingTimeInterval(2)
    var due: [String: Date] = [:]
    for index in 0..<count {
        let title = "bench-\(round)-\(index)"
        let stamp = ISO8601Local.utcString(from: start.addingTimeInterval(Double(index) * spacing))
        // The instant the agent is given, to the millisecond: measured from an instant it was
        // never told, a Notify looked up to a millisecond early.
        due[title] = ISO8601Local.parse(stamp, defaultTimeZone: UTCTimeZone())!
        let configuration = #"{"schedule":{"fixed":"\#(stamp)"},"presentation":{"alert":{"title":"\#(title)"}}}"#
        let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                           method: "\(AgentInterface.interface).Schedule", ["", configuration, "{}"])
        guard result.status == 0 else { throw Subprocess.Failure("Schedule failed: \(result.stderr)") }
    }
    let received = try eventually(timeout: Double(count) * spacing + 10, "\(count) alerts") { () -> [TestSession.Event]? in
        // The alerts only: an alarm that wakes the computer is announced ahead too (the
        // upcoming notice, "bench-0-1 at 18:40"), which starts with its title as well.
        let events = try session.events.filter { $0.event == "notify" && $0.summary.map { due[$0] != nil } == true }
        return events.count >= count ? events : nil
    }
    // Cleared before what follows, one alarm at a time.
    for alarm in try session.cliJSON([AlarmJSON].self, "list") { try session.cli("cancel", alarm.id) }
    return received.map { ($0.time - due[$0.summary!]!.timeIntervalSince1970) * 1000 }
}

/// Due instant → Notify of `reveille-bench-bare` (timerfd + libnotify, nothing else) for `count`
/// instants `spacing` apart, against the session's recording server, in ms. `hop`: libnotify
/// called on a thread of its own, handed each show as the agent's loop hands it (`--hop`).
func bareNotifyDelays(_ session: TestSession, count: Int, hop: Bool = false) throws -> [Double] {
    let start = (Date().timeIntervalSince1970 + 1).rounded(.up)
    let instants = (0..<count).map { start + Double($0) * spacing }
    let bare = try Subprocess.run(session.binaries + "/reveille-bench-bare",
                                  (hop ? ["--hop"] : []) + instants.map { String(Int64(($0 * 1_000_000_000).rounded())) },
                                  environment: session.environment, timeout: Double(count) * spacing + 30)
    guard bare.status == 0 else { throw Subprocess.Failure("reveille-bench-bare failed (\(bare.status)): \(bare.stderr)") }
    let prefix = hop ? "hop-" : "bare-"
    // This run's: the events after the first instant less a second (an earlier round's came before).
    let events = try session.events.filter { $0.event == "notify" && ($0.summary ?? "").hasPrefix(prefix) && $0.time > start - 1 }
    return events.compactMap { event in
        Int(event.summary!.dropFirst(prefix.count)).map { (event.time - instants[$0]) * 1000 }
    }
}

/// Resident memory (MiB) of `reveille-bench-bare` once it has shown a notification and waits
/// for its next instant: a C program with GLib, GIO, D-Bus and libnotify and nothing else, the
/// floor of what the agent's libraries and the bus connection take.
func bareResidentMiB(_ session: TestSession) throws -> Double {
    let shownBefore = try session.events.count { $0.event == "notify" && $0.summary == "bare-0" }
    let now = Date().timeIntervalSince1970
    let bare = try Subprocess.start(session.binaries + "/reveille-bench-bare", [now + 0.5, now + 3].map { String(Int64($0 * 1e9)) },
                                    environment: session.environment)
    defer { _ = bare.wait() }
    _ = try eventually(timeout: 10, "the bare program's first notification") { () -> Bool? in
        try session.events.count { $0.event == "notify" && $0.summary == "bare-0" } > shownBefore ? true : nil
    }
    return residentMiB(bare.pid)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

do {
    if environment["REVEILLE_BENCH_FLOODS_ONLY"] != nil {
        printFloods(try floodsOfEachDoor())
        exit(0)
    }
    let session = try TestSession()
    try session.startAgent()
    // Rounds of each series in turn, pooled: a p99 of one run of 100 is its second-largest value,
    // as much the machine's noise in that stretch of time as the program's.
    var notifyDelays: [Double] = [], bareDelays: [Double] = [], hopDelays: [Double] = []
    for round in 0..<firingRounds {
        notifyDelays += try agentNotifyDelays(session, count: count, round: round)
        bareDelays += try bareNotifyDelays(session, count: count)
        hopDelays += try bareNotifyDelays(session, count: count, hop: true)
    }
    if environment["REVEILLE_BENCH_FIRING_ONLY"] != nil {
        // For runs of the firing alone, several in a row: its rows, then stop.
        let notifySorted = notifyDelays.sorted(), bareSorted = bareDelays.sorted()
        for (label, sorted) in [("agent", notifySorted), ("bare", bareSorted), ("hop", hopDelays.sorted())] {
            print(label, [0, 0.5, 0.9, 0.99, 1].map { String(format: "%.2f", percentile(sorted, $0)) }.joined(separator: " "))
        }
        print(String(format: "p50 %.2f× p99 %.2f×", percentile(notifySorted, 0.5) / percentile(bareSorted, 0.5),
                     percentile(notifySorted, 0.99) / percentile(bareSorted, 0.99)))
        print("agent by index", notifyDelays.map { String(format: "%.1f", $0) }.joined(separator: " "))
        try session.killAgent(signal: SIGTERM)
        session.stopAll()
        exit(0)
    }
    let bareRSS = try bareResidentMiB(session)

    let rounds = Int(ProcessInfo.processInfo.environment["REVEILLE_BENCH_SOUNDS"] ?? "") ?? 8
    let recorder = try SinkRecorder(session: session)
    var audibleDelays: [Double] = [], silenceDelays: [Double] = []
    for round in 0..<rounds {
        let instant = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2.5).rounded(.up))
        let alarm = try session.cliJSON(AlarmJSON.self, "add", String(ISO8601Local.string(from: instant, in: UTCTimeZone()).prefix(19)),
                                        "--title", "sound-\(round)")
        let heard = try eventually(timeout: 6, "sound \(round)") { recorder.firstAudible(after: instant.addingTimeInterval(-0.5)) }
        audibleDelays.append(heard.timeIntervalSince(instant) * 1000)
        usleep(300_000)
        let stop = Date()
        try session.cli("stop", alarm.id)
        usleep(600_000)
        silenceDelays.append(max(0, (recorder.lastAudible() ?? stop).timeIntervalSince(stop)) * 1000)
    }
    recorder.stop()

    // reveille list against gdbus calling the same method, with 100 alarms.
    for alarm in try session.cliJSON([AlarmJSON].self, "list") { try session.cli("cancel", alarm.id) }
    let far = ISO8601Local.utcString(from: Date().addingTimeInterval(30 * 86_400))
    func addFar(_ n: Int) throws {
        for index in 0..<n {
            let configuration = #"{"schedule":{"fixed":"\#(far)"},"presentation":{"alert":{"title":"idle-\#(index)"}}}"#
            let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                               method: "\(AgentInterface.interface).Schedule", ["", configuration, "{}"])
            guard result.status == 0 else { throw Subprocess.Failure("Schedule \(index + 1) of \(n) failed: \(result.stderr)") }
        }
    }
    try addFar(100)
    let cliList = try medianMilliseconds(runs: 21) { _ = try session.cli("list") }
    let gdbusList = try medianMilliseconds(runs: 21) {
        _ = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                  method: "\(AgentInterface.interface).List", [])
    }
    // The CLI's start alone (no bus): what any command pays before it asks the agent anything.
    let cliStart = try medianMilliseconds(runs: 21) { _ = try session.cli("--version") }
    // The call reveille list makes, by gdbus: the agent's part of the list, with gdbus's own start.
    let gdbusListAndWake = try medianMilliseconds(runs: 21) {
        let result = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                           method: "\(AgentInterface.interface).ListPageAndWake", ["", "0"])
        guard result.status == 0 else { throw Subprocess.Failure("ListPageAndWake failed: \(result.stderr)") }
    }

    // Idle: up to `idleAlarms` alarms, none due soon; count the agent's wakeups and memory.
    let addStart = Date()
    try addFar(idleAlarms - 100)
    let addSeconds = Date().timeIntervalSince(addStart)
    let agent = session.agent!.pid
    usleep(1_000_000)
    let switchesBefore = contextSwitches(agent)
    usleep(UInt32(idleSeconds * 1_000_000))
    let idleWakeups = wakeups(from: switchesBefore, to: contextSwitches(agent))
    let rss = residentMiB(agent)
    let rssSources = residentBreakdown(agent)
    let (privateDirty, proportional) = privateDirtyAndProportionalMiB(agent)
    // The floor: a Swift program on the same runtime, Foundation and GLib, serving D-Bus and idle.
    let server = try session.ownerPID(of: "org.freedesktop.Notifications")
    let serverRSS = server.map { residentMiB($0) } ?? 0

    try session.killAgent(signal: SIGTERM)

    // A large store, in a session of its own.
    let large = try TestSession(audio: .none)
    try large.startAgent()
    let largeAddSeconds = try await scheduleMany(largeAlarms, address: large.environment["DBUS_SESSION_BUS_ADDRESS"]!)
    let largeList = try medianMilliseconds(runs: 5) { _ = try large.cli("list") }
    let largePages = try await timeListPages(runs: 5, address: large.environment["DBUS_SESSION_BUS_ADDRESS"]!)
    let largeStartOnly = try medianMilliseconds(runs: 5) { _ = try large.cli("--version") }
    try large.killAgent(signal: SIGTERM)
    var starts: [Double] = []
    for _ in 0..<5 {
        let (milliseconds, agent) = try await timeAgentStart(large)
        starts.append(milliseconds)
        agent.terminate()
        try large.waitForName(AgentInterface.busName, owned: false)
    }
    let largeStart = starts.sorted()[2]
    // Peak memory while loading the large store, then Cancel with 16 subscribers listening.
    let (_, loaded) = try await timeAgentStart(large)
    let loadPeak = residentMiB(loaded.pid, "VmHWM")
    let largeAddress = large.environment["DBUS_SESSION_BUS_ADDRESS"]!
    let subscribers = try await subscribe(16, address: largeAddress)
    let subscribedCancel = try await cancelMany(200, address: largeAddress) * 1000 / 200
    _ = subscribers
    loaded.terminate()
    let journal = (try? FileManager.default.attributesOfItem(atPath: large.stateDirectory + "/alarms.journal")[.size] as? Int) ?? 0
    let snapshot = (try? FileManager.default.attributesOfItem(atPath: large.stateDirectory + "/alarms.json")[.size] as? Int) ?? 0

    // Floods of each door from connections that never read (issue 49: the alarm within 50 ms
    // of due, the user's stop within 1 s, 64 MiB).
    let floods = try floodsOfEachDoor()

    print("Reveille benchmark (binaries: \(session.binaries))")
    print("")
    let columns = ["samples", "min", "p50", "p90", "p99", "max"]
    print("| measure                           | " + columns.map { $0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    print("|-----------------------------------|" + String(repeating: "---------|", count: columns.count))
    for (label, values) in [("due instant → Notify (ms)", notifyDelays), ("  bare timerfd + libnotify (ms)", bareDelays),
                            ("  bare + one thread hop (ms)", hopDelays),
                            ("due instant → first audible (ms)", audibleDelays),
                            ("Stop → silence (ms)", silenceDelays)] {
        let sorted = values.sorted()
        let cells = [String(sorted.count)] + [sorted.first!, percentile(sorted, 0.5), percentile(sorted, 0.9),
                                              percentile(sorted, 0.99), sorted.last!].map { String(format: "%.1f", $0) }
        print("| " + label.padding(toLength: 33, withPad: " ", startingAt: 0) + " | "
              + cells.map { $0.padding(toLength: 7, withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |")
    }
    print("")
    print("| measure                                             | value     | target    | floor (same run)          |")
    print("|-----------------------------------------------------|-----------|-----------|---------------------------|")
    let notifySorted = notifyDelays.sorted(), bareSorted = bareDelays.sorted(), hopSorted = hopDelays.sorted()
    let rows: [(String, String, String, String)] = [
        ("due → Notify against bare, p50", String(format: "%.2f×", percentile(notifySorted, 0.5) / percentile(bareSorted, 0.5)), "",
         String(format: "bare p50 %.1f ms", percentile(bareSorted, 0.5))),
        ("due → Notify against bare, p99", String(format: "%.2f×", percentile(notifySorted, 0.99) / percentile(bareSorted, 0.99)), "≤ 1.2×",
         String(format: "bare p99 %.1f ms", percentile(bareSorted, 0.99))),
        ("  one thread hop (bare with a hop / bare), p50, p99", String(format: "%.2f×", percentile(hopSorted, 0.5) / percentile(bareSorted, 0.5)), "",
         String(format: "%.2f× at p99", percentile(hopSorted, 0.99) / percentile(bareSorted, 0.99))),
        ("agent wakeups in \(Int(idleSeconds)) s idle, \(idleAlarms) alarms", "\(idleWakeups)", "0", ""),
        ("agent private dirty memory idle with \(idleAlarms) alarms (MiB)", String(format: "%.1f", privateDirty), "", ""),
        ("agent PSS idle with \(idleAlarms) alarms (MiB)", String(format: "%.1f", proportional), "", ""),
        // RSS counts the executable's clean code pages, which the kernel reclaims by itself: no goal (issue 42).
        ("agent RSS idle with \(idleAlarms) alarms (MiB)", String(format: "%.1f", rss), "",
         String(format: "Swift server %.1f MiB", serverRSS)),
        ("  its executable's pages (MiB)", String(format: "%.1f", rssSources.executable), "", ""),
        ("  shared libraries' pages (MiB)", String(format: "%.1f", rssSources.libraries), "",
         String(format: "bare C program %.1f MiB", bareRSS)),
        ("  anonymous: heap, stacks, data (MiB)", String(format: "%.1f", rssSources.anonymous), "", ""),
        ("`reveille list`, 100 alarms (ms, median of 21)", String(format: "%.1f", cliList), "",
         String(format: "--version %.1f ms", cliStart)),
        ("`gdbus call List`, 100 alarms (ms, median of 21)", String(format: "%.1f", gdbusList), "", ""),
        ("`gdbus call ListPageAndWake` (reveille list's call)", String(format: "%.1f", gdbusListAndWake), "", ""),
        ("`reveille list` / `gdbus call`", String(format: "%.2f×", cliList / gdbusList), "≤ 1.5×",
         String(format: "--version alone %.2f×", cliStart / gdbusList)),
        ("adding alarms 101 to \(idleAlarms) by gdbus (s)", String(format: "%.1f", addSeconds), "", ""),
        ("adding \(largeAlarms) alarms, one client (s)", String(format: "%.1f", largeAddSeconds), "", ""),
        ("  per Schedule call (ms)", String(format: "%.2f", largeAddSeconds * 1000 / Double(largeAlarms)), "", ""),
        ("agent start with \(largeAlarms) alarms (ms, median of 5)", String(format: "%.0f", largeStart), "≤ 300", ""),
        ("`reveille list`, \(largeAlarms) alarms (ms, median of 5)", String(format: "%.0f", largeList), "≤ 200",
         String(format: "pages %.0f + start %.0f ms", largePages, largeStartOnly)),
        ("agent peak RSS loading \(largeAlarms) alarms (MiB)", String(format: "%.1f", loadPeak), "", ""),
        ("Cancel, \(largeAlarms) stored, 16 subscribers (ms)", String(format: "%.2f", subscribedCancel), "", ""),
        ("store on disk: snapshot + journal (MiB)", String(format: "%.1f + %.1f", Double(snapshot) / 1_048_576, Double(journal) / 1_048_576), "", ""),
    ]
    for (label, value, target, floor) in rows {
        print("| " + label.padding(toLength: 51, withPad: " ", startingAt: 0) + " | " + value.padding(toLength: 9, withPad: " ", startingAt: 0)
              + " | " + target.padding(toLength: 9, withPad: " ", startingAt: 0) + " | " + floor.padding(toLength: 25, withPad: " ", startingAt: 0) + " |")
    }
    printFloods(floods)
} catch {
    FileHandle.standardError.write(Data("reveille-bench: \(error)\n".utf8))
    exit(1)
}
