import Foundation
import ReveilleLoop
import ReveilleSound
import ReveilleTestSupport
import Testing

/// An alarm's stream is opened corked ahead of its instant and uncorked when it rings. On a
/// loaded machine the sound server may not have made the stream by then; PulseAudio refuses to
/// uncork a stream it has not made (`PA_ERR_BADSTATE`), and the alarm rang silent for a minute
/// under a flood in CI. An uncork asked before the stream is made starts it once it is.
@Suite("A stream uncorked before the sound server made it")
struct StreamUncorkTests {
    /// A quiet tone, generated: nothing read from a file.
    final class Tone: SoundReader {
        let channels = 1
        let sampleRate = 22_050
        private var frame = 0
        func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
            for index in 0..<frames {
                output[index] = 0.2 * Float(sin(2 * Double.pi * 440 * Double(frame) / Double(sampleRate)))
                frame += 1
            }
        }
    }

    @GLibActor final class Holder {
        var pulse: PulseAudio?
        var stream: LoopingStream?
    }

    @Test(.timeLimit(.minutes(1))) func aStreamUncorkedBeforeTheServerMadeItPlaysOnceMade() async throws {
        let session = try TestSession(audio: .pulseAudio)
        let server = try #require(session.environment["PULSE_SERVER"])
        let holder = await Holder()
        let connected = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            Task { @GLibActor in
                let pulse = PulseAudio(appName: "reveille-uncork-test", appID: "io.github.reveille.Tests")
                holder.pulse = pulse
                pulse.onReadyChange = { [weak pulse] ready in
                    pulse?.onReadyChange = nil
                    done.resume(returning: ready)
                }
                pulse.connect(server: server)
            }
        }
        try #require(connected, "the client connects to the session's PulseAudio")
        let asked = await Task { @GLibActor () -> Bool in
            guard let stream = holder.pulse?.play(Tone(), volume: 0.5, fadeIn: 0, mediaName: "uncork test", eventID: "alarm-clock-elapsed",
                                                  corked: true) else { return false }
            holder.stream = stream
            // In the same turn of the loop: the server has not answered yet, the stream is not made.
            stream.uncork()
            return true
        }.value
        try #require(asked, "the stream opens")
        _ = try eventually(timeout: 20, "the stream, uncorked before it was made, to play once made") { try session.playsSound() ? true : nil }
        await Task { @GLibActor in
            holder.stream?.stop()
            holder.pulse = nil
        }.value
    }
}
