import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import Testing

/// Titles and button texts are `LocalizedStringResource`s (as in AlarmKit) but travel and are
/// stored as the plain strings they always were: what older agents, clients and stores wrote
/// reads, and what this version writes reads in them.
@Suite("Localized text on the wire and in the store")
struct LocalizedTextCompatibilityTests {
    /// A configuration as clients before `LocalizedStringResource` sent it (keys sorted, as
    /// `JSONCoding` writes them): every title and button text a plain string.
    static let configurationWrittenBefore = #"{"countdownDuration":{"postAlert":540,"preAlert":60},"presentation":{"alert":{"secondaryButton":{"systemImageName":"alarm-symbolic","text":"Snooze"},"secondaryButtonBehavior":"countdown","stopButton":{"systemImageName":"media-playback-stop","text":"Done"},"title":"Wake up"},"countdown":{"pauseButton":{"systemImageName":"media-playback-pause","text":"Pause"},"title":"Up soon"},"paused":{"resumeButton":{"systemImageName":"media-playback-start","text":"Go on","textColor":{"blue":0.19,"green":0.23,"red":1}},"title":"Held"}},"ring":{},"schedule":{"relative":{"repeats":["mon"],"time":{"hour":7,"minute":30}}},"sound":"default","tintColor":{"blue":1,"green":0.48,"red":0}}"#

    /// A snapshot line as the store wrote it before.
    static let snapshotWrittenBefore = """
        {"format":"reveille-alarms","version":1,"alarms":[
        {"alarm":{"countdownDuration":{"postAlert":540,"preAlert":60},"id":"6F1C1E2A-0C3B-4D5E-8F90-A1B2C3D4E5F6","schedule":{"relative":{"repeats":["mon"],"time":{"hour":7,"minute":30}}},"state":"scheduled"},"appID":"org.example.Cook","fireDate":"2027-06-07T07:30:00.000Z","presentation":{"alert":{"secondaryButton":{"systemImageName":"alarm-symbolic","text":"Snooze"},"secondaryButtonBehavior":"countdown","title":"Wake up"},"countdown":{"pauseButton":{"systemImageName":"media-playback-pause","text":"Pause"},"title":"Up soon"},"paused":{"resumeButton":{"systemImageName":"media-playback-start","text":"Go on","textColor":{"blue":0.19,"green":0.23,"red":1}},"title":"Held"}}}
        ]}

        """

    /// The presentation's declarations before: every text a `String`. An older agent or client
    /// reads what this version writes with these.
    struct PresentationBefore: Decodable {
        struct Button: Decodable { var text: String; var systemImageName: String }
        struct Alert: Decodable { var title: String; var stopButton: Button?; var secondaryButton: Button? }
        struct Countdown: Decodable { var title: String; var pauseButton: Button? }
        struct Paused: Decodable { var title: String; var resumeButton: Button }
        var alert: Alert
        var countdown: Countdown?
        var paused: Paused?
    }

    struct RequestBefore: Decodable { var presentation: PresentationBefore }

    @Test func aConfigurationWrittenBeforeReadsAndIsWrittenBackByteForByte() throws {
        let request = try JSONCoding.decoder.decode(AlarmRequest.self, from: Data(Self.configurationWrittenBefore.utf8))
        let presentation = request.presentation
        #expect(presentation.alert.title == "Wake up" && presentation.alert.title.key == "Wake up")
        #expect(presentation.alert.stopButton.text.defaultValue == "Done")
        #expect(presentation.alert.secondaryButton?.text == "Snooze")
        #expect(presentation.countdown?.title.defaultValue == "Up soon")
        #expect(presentation.countdown?.pauseButton == .pauseButton)
        #expect(presentation.paused?.title.defaultValue == "Held" && presentation.paused?.resumeButton.text.defaultValue == "Go on")
        let written = String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
        #expect(written == Self.configurationWrittenBefore)
    }

    @Test func aStoreWrittenBeforeLoadsWithEveryText() throws {
        let decoded = AlarmStore.decode(snapshot: Array(Self.snapshotWrittenBefore.utf8), journal: [UInt8]())
        #expect(decoded.damaged.isEmpty)
        let record = try #require(decoded.alarms.first)
        #expect(record.title == "Wake up")
        #expect(record.presentation.paused?.resumeButton.text.defaultValue == "Go on")
        #expect(String(decoding: try AlarmStore.encode(decoded.alarms), as: UTF8.self) == Self.snapshotWrittenBefore)
    }

    @Test func aResourceTravelsAsTheTextItShowsAndOlderReadersReadIt() throws {
        let minutes = 3
        let title: LocalizedStringResource = "Boil \(minutes) min eggs"
        let button = AlarmButton(text: LocalizedStringResource("again", defaultValue: "Repeat", table: "Kitchen"),
                                 textColor: .white, systemImageName: "view-refresh")
        #expect(title.key == "Boil %@ min eggs" && title.defaultValue == "Boil 3 min eggs")
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 180, postAlert: 180),
                                   presentation: AlarmPresentation(
                                       alert: .init(title: title, secondaryButton: button, secondaryButtonBehavior: .countdown),
                                       countdown: .init(title: title, pauseButton: .pauseButton),
                                       paused: .init(title: "Paused: \(title)", resumeButton: .resumeButton)))
        let json = try JSONCoding.compactEncoder.encode(request)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""title":"Boil 3 min eggs""#) && text.contains(#""text":"Repeat""#)
                && text.contains(#""title":"Paused: Boil 3 min eggs""#))
        #expect(!text.contains("%@") && !text.contains("Kitchen") && !text.contains("again"))

        // An agent or client of the version before reads it.
        let before = try JSONCoding.decoder.decode(RequestBefore.self, from: json).presentation
        #expect(before.alert.title == "Boil 3 min eggs" && before.alert.secondaryButton?.text == "Repeat")
        #expect(before.countdown?.title == "Boil 3 min eggs" && before.paused?.title == "Paused: Boil 3 min eggs")

        // Read back, it shows the same and equals what was sent; its key is now its text.
        let back = try JSONCoding.decoder.decode(AlarmRequest.self, from: json)
        #expect(back.presentation == request.presentation)
        #expect(back.presentation.alert.title.key == "Boil 3 min eggs")
        #expect(try JSONCoding.compactEncoder.encode(back) == json)
    }

    @Test func aListReadsTheTextsAsStrings() throws {
        let record = try AlarmRecord(id: UUID(), request: request(schedule: relative(7, 30), title: "Tea"), appID: "cli",
                                     now: instant("2027-06-01T12:00:00Z"), timeZone: zone("UTC"))
        let listing = try JSONCoding.decoder.decode(AlarmListing.self, from: JSONCoding.compactEncoder.encode(record))
        #expect(listing.title == "Tea" && listing.secondaryButton == "Snooze")
        #expect(AlarmListing(record).secondaryButton == listing.secondaryButton)
    }

    @Test func aResourceAnAppEncodedBeforeInItsMetadataReads() throws {
        // ReveilleKit's resource was a synthesized Codable struct: an app's metadata holding one
        // was stored as an object.
        struct Metadata: Codable { var label: LocalizedStringResource }
        let stored = #"{"label":{"defaultValue":"Boil 3 min","key":"Boil %@ min","table":"Kitchen"}}"#
        let label = try JSONCoding.decoder.decode(Metadata.self, from: Data(stored.utf8)).label
        #expect((label.key, label.defaultValue, label.table) == ("Boil %@ min", "Boil 3 min", "Kitchen"))
        #expect(String(decoding: try JSONCoding.compactEncoder.encode(Metadata(label: label)), as: UTF8.self)
                == #"{"label":"Boil 3 min"}"#)
    }

    @Test(arguments: ["42", "null", #"{"key":"Wake up"}"#, #"["Wake up"]"#])
    func aTitleThatIsNotTextIsRefusedNamingWhereAndWhatIsAccepted(_ title: String) {
        #expect {
            _ = try AlarmRequest.decode(configuration: #"{"presentation":{"alert":{"title":\#(title)}}}"#)
        } throws: { error in
            (error as? AlarmError)?.reason.contains("presentation.alert.title") == true
                && (error as? AlarmError)?.reason.contains("a text is a JSON string") == true
        }
    }
}
