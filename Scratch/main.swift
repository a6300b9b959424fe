import Foundation
import ReveilleCore

let zoneUTC = TimeZone(identifier: "UTC")!
func req(_ i: Int) -> AlarmRequest {
    AlarmRequest(schedule: .relative(.init(time: .init(hour: i % 24, minute: i % 60), repeats: .weekly([.monday, .friday]))),
                 countdownDuration: .init(preAlert: nil, postAlert: 540),
                 presentation: AlarmPresentation(alert: .init(title: "Alarm \(i)", secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown)))
}
var records: [AlarmRecord] = []
for i in 0..<10_000 { records.append(try AlarmRecord(id: UUID(), request: req(i), appID: "reveille", now: Date(), timeZone: zoneUTC)) }
let mode = CommandLine.arguments[1]
let data = try JSONCoding.compactEncoder.encode(records)
let t = Date()
for _ in 0..<5 {
if mode == "e" { _ = try JSONCoding.compactEncoder.encode(records) } else { _ = try JSONCoding.decoder.decode([AlarmRecord].self, from: data) }
}
print(mode, Date().timeIntervalSince(t) / 5)
