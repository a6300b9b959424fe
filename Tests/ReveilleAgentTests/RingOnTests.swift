import Foundation
import Testing
@testable import ReveilleAgent

/// Where alarms ring (`ringOn`), as read from the settings and as chosen among the sinks there are.
@Suite("Ring on")
struct RingOnTests {
    func read(_ json: String) throws -> RingOn {
        try JSONDecoder().decode([String: RingOn].self, from: Data(#"{"ringOn": \#(json)}"#.utf8))["ringOn"]!
    }

    @Test("default, all, or an output's name; anything else is refused naming what is accepted")
    func setting() throws {
        #expect(try read(#""default""#) == .defaultOutput)
        #expect(try read(#""all""#) == .all)
        #expect(try read(#""alsa_output.usb-Speaker.analog-stereo""#) == .output("alsa_output.usb-Speaker.analog-stereo"))
        for bad in [#""""#, #""two words""#, #""tab\tname""#, "\"" + String(repeating: "x", count: 256) + "\"", "true"] {
            #expect(throws: DecodingError.self, "\(bad)") { try read(bad) }
        }
        do { _ = try read(#""my speaker""#); Issue.record("accepted") } catch {
            #expect(String(describing: error).contains(#"accepted: "default", "all", or an output's name"#), "\(error)")
        }
        let settings = try JSONDecoder().decode(AgentSettings.self, from: Data(#"{"ringOn": "all"}"#.utf8))
        #expect(settings.ringOn == .all)
        #expect(try JSONDecoder().decode(AgentSettings.self, from: Data("{}".utf8)).ringOn == .defaultOutput, "today's behaviour by default")
    }

    @Test("all rings every sink (the default before any is listed); a named sink that is gone falls back to the default, named")
    func sinks() {
        let there = ["speakers", "headphones"]
        #expect(RingOn.defaultOutput.sinks(among: there) == ([nil], nil))
        #expect(RingOn.all.sinks(among: there) == (["speakers", "headphones"], nil))
        #expect(RingOn.all.sinks(among: []) == ([nil], nil))
        #expect(RingOn.output("headphones").sinks(among: there) == (["headphones"], nil))
        #expect(RingOn.output("bluetooth").sinks(among: there) == ([nil], "bluetooth"))
    }
}
