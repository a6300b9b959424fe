import Foundation
import Logging
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import SystemPackage
import Testing

/// The history in process: what the engine reports as an occurrence ends, the bounds, and
/// how a file's lines are read.
@Suite("Alarm history")
struct HistoryTests {
    let utc = UTCTimeZone()
    let start = instant("2026-11-23T08:00:00Z")
    typealias Harness = AlarmEngineTests.Harness

    func ended(_ effects: [AlarmEngine.Effect]) -> [AlarmHistory.Entry] {
        var all: [AlarmHistory.Entry] = []
        for case .ended(let entry) in effects { all.append(entry) }
        return all
    }

    func entry(_ title: String = "Tea", app: String = "reveille", due: Date, outcome: AlarmHistory.Outcome = .stopped) -> AlarmHistory.Entry {
        AlarmHistory.Entry(alarmID: UUID(), title: title, appID: app, due: due, rang: due, seconds: 12,
                           ended: due + 12, outcome: outcome, by: "reveille")
    }

    // MARK: What the engine reports

    @Test(arguments: [(AlarmAction.stop, AlarmHistory.Outcome.stopped), (.countdown, .snoozed), (.cancel, .cancelled)])
    func answeringARingingAlarmEndsItsOccurrence(action: AlarmAction, outcome: AlarmHistory.Outcome) throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(AlarmEngineTests().timer(60), appID: "org.example.Cook")
        harness.advance(to: start + 61)
        #expect(ended(harness.effects).isEmpty, "ringing has not ended")
        harness.now = start + 75
        try harness.perform(.apply(action, id: .id(tea.id)), owner: "org.example.Cook")
        let entry = try #require(ended(harness.effects).first)
        #expect(entry.alarmID == tea.id && entry.title == "Tea" && entry.appID == "org.example.Cook")
        #expect(entry.due == start + 60 && entry.rang == start + 61 && entry.seconds == 14 && entry.ended == start + 75)
        #expect(entry.outcome == outcome && entry.by == "org.example.Cook")
    }

    @Test func theUsersAnswerIsByReveilleAndAChangeWhileRingingIsRecorded() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(AlarmEngineTests().timer(60))
        harness.advance(to: start + 60)
        try harness.perform(.update(id: .id(tea.id), request: AlarmEngineTests().timer(120)))
        #expect(ended(harness.effects).map(\.outcome) == [.changed] && ended(harness.effects).first?.by == "reveille")
    }

    @Test func whatDoesNotEndARingingOccurrenceIsNotRecorded() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(AlarmEngineTests().timer(60))
        try harness.perform(.apply(.pause, id: .id(tea.id)))
        try harness.perform(.apply(.resume, id: .id(tea.id)))
        try harness.perform(.apply(.cancel, id: .id(tea.id)))
        #expect(ended(harness.effects).isEmpty, "a countdown cancelled never rang")
    }

    @Test func aRingLimitReachedIsMissedUnansweredByNobody() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(AlarmEngineTests().timer(60, ringLimit: 30))
        harness.advance(to: start + 60)
        harness.advance(to: start + 90)
        let entry = try #require(ended(harness.effects).first)
        #expect(entry.alarmID == tea.id && entry.outcome == .missedUnanswered && entry.by == nil)
        #expect(entry.rang == start + 60 && entry.seconds == 30 && entry.outcome.isMissed)
    }

    @Test func anOccurrenceDueWhileNothingRanIsMissedLateAndNeverRang() throws {
        let due = start + 3600
        let record = try AlarmRecord(id: UUID(), request: request(schedule: .fixed(due)), appID: "reveille", now: start, timeZone: utc)
        let harness = Harness(now: due + 7200, timeZone: utc, settings: .init(lateWindow: 600), loading: [record])
        let entry = try #require(ended(harness.effects).first)
        #expect(entry.outcome == .missedLate && entry.due == due && entry.rang == nil && entry.seconds == 0)
        #expect(entry.ended == due + 7200 && entry.by == nil)
    }

    // MARK: Bounds

    @Test func pastItsEntryBoundTheNewestNineHundredAreKept() throws {
        var history = AlarmHistory()
        var pastBound = false
        for second in 0...AlarmHistory.maximumEntries {
            let new = entry("n\(second)", due: start + Double(second))
            pastBound = history.append(new, lineBytes: try AlarmHistory.line(new).count)
        }
        #expect(pastBound && history.entries.count == 1001)
        history.trim()
        #expect(history.entries.count == 900 && history.entries.last?.title == "n1000" && history.entries.first?.title == "n101")
        #expect(try history.encoded().count == history.bytes)
    }

    @Test func pastItsByteBoundTheNewestWithinNinetyPercentAreKept() throws {
        var history = AlarmHistory()
        let long = String(repeating: "é", count: 1000)
        var count = 0
        while !history.isPastBounds {
            let new = entry(long, due: start + Double(count))
            _ = history.append(new, lineBytes: try AlarmHistory.line(new).count)
            count += 1
        }
        #expect(count < AlarmHistory.maximumEntries, "bytes, not entries, were the bound")
        history.trim()
        #expect(history.bytes <= AlarmHistory.maximumBytes * 9 / 10)
        #expect(try history.encoded().count == history.bytes)
        #expect(history.entries.last?.due == start + Double(count - 1))
    }

    @Test func anEntryLongerThanALineMayBeIsRefused() {
        #expect(throws: StoreError.self) { try AlarmHistory.line(entry(String(repeating: "\u{1}", count: 3000), due: start)) }
    }

    // MARK: Reading

    @Test func aDamagedLineCostsOnlyItselfAndATornTailIsNoted() throws {
        let first = entry("First", due: start), second = entry("Second", due: start + 60)
        var bytes = try AlarmHistory.line(first)
        bytes.append(Data("{\"alarm\": 12, broken\n\n".utf8))
        bytes.append(Data(String(repeating: "x", count: AlarmHistory.maximumLineBytes + 10).utf8) + Data("\n".utf8))
        bytes.append(try AlarmHistory.line(second))
        bytes.append(Data("{\"alarm\":".utf8))
        let decoded = AlarmHistory.decode(bytes)
        #expect(decoded.history.entries == [first, second])
        #expect(decoded.damagedLines == [2, 4, 6] && decoded.tornTail && decoded.needsRewrite)
        let clean = AlarmHistory.decode(try AlarmHistory.line(first) + AlarmHistory.line(second))
        #expect(!clean.needsRewrite && clean.history.entries == [first, second])
    }

    @Test func aFileLongerThanTheBoundsIsReadWithinThem() throws {
        var bytes = Data()
        for second in 0..<1500 { bytes.append(try AlarmHistory.line(entry(due: start + Double(second)))) }
        let decoded = AlarmHistory.decode(bytes)
        #expect(decoded.trimmed && decoded.history.entries.count <= AlarmHistory.maximumEntries)
        #expect(decoded.history.entries.last?.due == start + 1499)
    }

    // MARK: Views

    @Test func anAppSeesItsOwnEntriesNewestFirstAndTheReplyHoldsTheNewestThatFit() throws {
        var history = AlarmHistory()
        for (index, app) in ["org.example.Cook", "reveille", "org.example.Cook"].enumerated() {
            let new = entry("e\(index)", app: app, due: start + Double(index))
            _ = history.append(new, lineBytes: try AlarmHistory.line(new).count)
        }
        let decoder = JSONCoding.decoder
        let cook = try decoder.decode([AlarmHistory.Entry].self, from: Data(try history.json(for: "org.example.Cook", maximumBytes: 1 << 20).utf8))
        #expect(cook.map(\.title) == ["e2", "e0"])
        let all = try decoder.decode([AlarmHistory.Entry].self, from: Data(try history.json(for: nil, maximumBytes: 1 << 20).utf8))
        #expect(all.map(\.title) == ["e2", "e1", "e0"])
        let oneLine = try AlarmHistory.line(history.entries[2]).count
        let newest = try history.json(for: nil, maximumBytes: oneLine + 8)
        #expect(try decoder.decode([AlarmHistory.Entry].self, from: Data(newest.utf8)).map(\.title) == ["e2"])
        #expect(newest.utf8.count <= oneLine + 8)
    }

    @Test func sinceAndMissedFilter() {
        let entries = [entry("old", due: start - 86_400, outcome: .missedLate), entry("stopped", due: start),
                       entry("unanswered", due: start + 60, outcome: .missedUnanswered)]
        #expect(AlarmHistory.filter(entries, since: start, missedOnly: false).map(\.title) == ["stopped", "unanswered"])
        #expect(AlarmHistory.filter(entries, since: nil, missedOnly: true).map(\.title) == ["old", "unanswered"])
        #expect(AlarmHistory.filter(entries, since: start, missedOnly: true).map(\.title) == ["unanswered"])
    }

    // MARK: The file

    @Test func theFileIsPrivateSurvivesARestartAndIsRewrittenPastItsBound() throws {
        let directory = FilePath(NSTemporaryDirectory() + "reveille-history-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let file = HistoryFile(directory: directory, logger: Logger(label: "test"))
        file.load()
        file.append(entry("One", due: start))
        var status = stat()
        #expect(stat(file.file.string, &status) == 0 && status.st_mode & 0o777 == 0o600)
        let again = HistoryFile(directory: directory, logger: Logger(label: "test"))
        again.load()
        #expect(again.history.entries.map(\.title) == ["One"])
        // A full file written at once (a thousand appends would each sync), then one append past the bound.
        var full = try AlarmHistory.line(entry("One", due: start))
        for second in 1..<AlarmHistory.maximumEntries { full.append(try AlarmHistory.line(entry("n\(second)", due: start + Double(second)))) }
        try full.write(to: URL(fileURLWithPath: file.file.string))
        again.load()
        #expect(again.history.entries.count == AlarmHistory.maximumEntries)
        again.append(entry("n1000", due: start + 1000))
        let size = try FileManager.default.attributesOfItem(atPath: file.file.string)[.size] as? Int
        #expect(again.history.entries.count == 900 && size == again.history.bytes)
        let third = HistoryFile(directory: directory, logger: Logger(label: "test"))
        third.load()
        #expect(third.history == again.history)
    }

    @Test func aFIFOInTheFilesPlaceNeitherBlocksTheAgentNorLosesTheEntry() throws {
        let directory = FilePath(NSTemporaryDirectory() + "reveille-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let file = HistoryFile(directory: directory, logger: Logger(label: "test"))
        #expect(mkfifo(file.file.string, 0o600) == 0)
        file.load()
        file.append(entry("Kept", due: start))
        #expect(file.history.entries.map(\.title) == ["Kept"])
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.string)
        #expect(names.contains { $0.hasPrefix("history.jsonl.unreadable-") }, "the FIFO is moved aside: \(names)")
        let again = HistoryFile(directory: directory, logger: Logger(label: "test"))
        again.load()
        #expect(again.history.entries.map(\.title) == ["Kept"], "and the entry written in a new file")
    }

    @Test func aFileLargerThanTheAgentWritesIsKeptAsideUnreadAndTheHistoryStartsAnew() throws {
        let directory = FilePath(NSTemporaryDirectory() + "reveille-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let file = HistoryFile(directory: directory, logger: Logger(label: "test"))
        let huge = Data(count: HistoryFile.maximumFileBytes + 1)
        try huge.write(to: URL(fileURLWithPath: file.file.string))
        file.load()
        #expect(file.history.entries.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.string)
        let aside = try #require(names.first { $0.hasPrefix("history.jsonl.unreadable-") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.appending(aside).string)) == huge, "nothing stored is lost")
        file.append(entry("New", due: start))
        #expect(try String(contentsOfFile: file.file.string, encoding: .utf8).contains("\"New\""))
    }
}
