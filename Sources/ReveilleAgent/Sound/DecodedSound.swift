import CSndfile
import FoundationEssentials

/// A sound file decoded once into interleaved 32-bit float frames (libsndfile). The only
/// file that calls libsndfile: it reads WAV, FLAC, Ogg Vorbis/Opus and the rest it knows.
struct DecodedSound: Sendable {
    var samples: [Float]
    var channels: Int
    var sampleRate: Int

    var frameCount: Int { samples.count / max(channels, 1) }
    var duration: TimeInterval { Double(frameCount) / Double(sampleRate) }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Below this (about −60 dBFS) a leading sample counts as silence.
    static let silenceThreshold: Float = 0.001

    /// Decodes `path` with `sf_open` / `sf_readf_float`, then trims the leading silence so the
    /// first frame played is audible.
    init(path: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw Failure(description: "cannot decode \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        guard info.channels > 0, info.channels <= 8, info.samplerate > 0, info.frames > 0 else {
            throw Failure(description: "\(path) has \(info.channels) channels at \(info.samplerate) Hz and \(info.frames) frames; "
                + "accepted: 1 to 8 channels and at least one frame")
        }
        // Cap at ten minutes: an alarm loops, it needs no more.
        let frames = min(Int(info.frames), 600 * Int(info.samplerate))
        var buffer = [Float](repeating: 0, count: frames * Int(info.channels))
        let read = buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        guard read > 0 else { throw Failure(description: "\(path) decoded to no audio") }
        buffer.removeLast((frames - Int(read)) * Int(info.channels))
        channels = Int(info.channels)
        sampleRate = Int(info.samplerate)
        let firstAudible = buffer.firstIndex { abs($0) >= Self.silenceThreshold } ?? 0
        samples = Array(buffer[(firstAudible / channels * channels)...])
    }
}
