import Foundation

/// A Notify call as `dbus-monitor` printed it when the bus delivered it to the server.
struct NotifyCall: Equatable {
    /// When the monitor received it (dbus-monitor's `time=`, seconds since 1970).
    var time: Date
    var summary: String
    /// The actions array as sent: key, label, key, label...
    var actions: [String]
    /// The `urgency` hint (2 is critical), when there is one.
    var urgency: Int?

    /// The buttons as "Label (key)".
    var buttons: [String] {
        stride(from: 0, to: actions.count - 1, by: 2).map { "\(actions[$0 + 1]) (\(actions[$0]))" }
    }

    /// The Notify calls in dbus-monitor's default output, in order.
    ///
    /// A message starts with a line `method call time=T ... member=Notify` (or `signal`,
    /// `method return`, `error`); its arguments follow, the top-level ones 3 spaces in: app
    /// name, replaces id, icon, summary, body (a string may run over several lines), the
    /// actions as `array [` ... `]`, then the hints as dict entries.
    static func parse(_ text: String) -> [NotifyCall] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let starts = lines.indices.filter { lines[$0].firstMatch(of: /^(method call|method return|signal|error) time=/) != nil }
        return starts.enumerated().compactMap { position, start in
            let header = lines[start]
            guard header.hasPrefix("method call "), header.contains("member=Notify"),
                  let time = header.firstMatch(of: /time=(\d+\.\d+)/).flatMap({ Double($0.1) }) else { return nil }
            let end = position + 1 < starts.count ? starts[position + 1] : lines.endIndex
            let body = lines[(start + 1)..<end]
            let topLevelStrings = body.compactMap { $0.firstMatch(of: /^   string "(.*)"$/).map { String($0.1) } }
            guard topLevelStrings.count >= 3 else { return nil }
            var actions: [String] = []
            if let open = body.firstIndex(of: "   array [") {
                for line in body[(open + 1)...] {
                    if line == "   ]" { break }
                    if let value = line.firstMatch(of: /^      string "(.*)"$/) { actions.append(String(value.1)) }
                }
            }
            let urgency = body.firstIndex { $0.contains("string \"urgency\"") }
                .flatMap { $0 + 1 < end ? lines[$0 + 1].firstMatch(of: /byte (\d+)/) : nil }.flatMap { Int($0.1) }
            // The third top-level string: after the app name and the icon (the replaces id is a uint32).
            return NotifyCall(time: Date(timeIntervalSince1970: time), summary: topLevelStrings[2], actions: actions, urgency: urgency)
        }
    }
}
