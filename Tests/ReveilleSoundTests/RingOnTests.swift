import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
@testable import ReveilleSound
import Testing

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
        let settings = try AgentSettings(fileText: #"{"ringOn": "all"}"#)
        #expect(settings.ringOn == .all)
        #expect(try AgentSettings(fileText: "{}").ringOn == .defaultOutput, "today's behaviour by default")
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

    /// A stream that records what was done to it.
    @GLibActor
    final class Stream: RingingStream {
        let sink: String?
        var corked: Bool
        var stopped = false
        var onFailure: (@GLibActor () -> Void)?
        init(_ sink: String?, corked: Bool) { (self.sink, self.corked) = (sink, corked) }
        func uncork() { corked = false }
        func stop() { stopped = true }
    }

    @Test("an alarm's streams start and stop together, follow the outputs as they come and go, and fail only when all have")
    @GLibActor
    func streamsFollowTheOutputs() {
        var opened: [Stream] = []
        let streams = RingingStreams(corked: true) { sink, _, corked in
            let stream = Stream(sink, corked: corked)
            opened.append(stream)
            return stream
        }
        var failed = false
        streams.onFailure = { failed = true }
        streams.follow(["speakers", "headphones"])
        #expect(opened.map(\.sink) == ["speakers", "headphones"] && opened.allSatisfy { $0.corked }, "prepared ahead, corked")
        streams.uncork()
        #expect(opened.allSatisfy { !$0.corked })
        streams.follow(["speakers", "headphones", "bluetooth"])
        #expect(opened.count == 3 && !opened[2].corked, "an output that comes joins, playing")
        opened[1].onFailure?()
        #expect(!failed, "one unplugged: the others ring on")
        streams.follow(["speakers", "bluetooth"])
        #expect(opened.count == 3, "the one that went is not opened again")
        opened[0].onFailure?()
        opened[2].onFailure?()
        #expect(failed, "all gone: the sounder hears it")
        streams.stop()
        streams.follow(["speakers"])
        #expect(opened.count == 3, "nothing opens once stopped")
    }

    @Test("a named output that is gone rings the default; when it comes, it replaces the default; stop stops everything")
    @GLibActor
    func aNamedOutputReplacesTheDefaultWhenItComes() {
        var opened: [Stream] = []
        let streams = RingingStreams(corked: false) { sink, _, corked in
            let stream = Stream(sink, corked: corked)
            opened.append(stream)
            return stream
        }
        streams.follow(RingOn.output("headphones").sinks(among: ["speakers"]).sinks)
        #expect(opened.map(\.sink) == [nil])
        streams.follow(RingOn.output("headphones").sinks(among: ["speakers", "headphones"]).sinks)
        #expect(opened.map(\.sink) == [nil, "headphones"] && opened[0].stopped && !opened[1].stopped)
        streams.stop()
        #expect(opened.allSatisfy { $0.stopped })
    }
}
