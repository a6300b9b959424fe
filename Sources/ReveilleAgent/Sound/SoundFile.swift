import CSndfile
import FoundationEssentials
import Glibc

/// Sound files through libsndfile, the only file that calls it: it reads WAV, FLAC, Ogg
/// Vorbis/Opus and the rest it knows. Short sounds are decoded once into memory; long ones
/// (a song as an alarm) are read from their file as they play, so memory stays bounded
/// whatever the file claims to hold.
enum SoundFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The largest file accepted, in bytes.
    static let maximumBytes: Int64 = 512 << 20
    /// The longest sound accepted.
    static let maximumDuration: TimeInterval = 3600
    /// Sounds up to this many samples (all channels) are decoded into memory: 16 MiB of floats.
    static let memoryBudgetSamples = 4 << 20
    /// Below this (about −60 dBFS) a leading sample counts as silence.
    static let silenceThreshold: Float = 0.001

    /// What the file's header says.
    struct Info: Sendable {
        var channels: Int
        var sampleRate: Int
        var frames: Int
        var duration: TimeInterval { Double(frames) / Double(sampleRate) }
    }

    /// Opens `path` for decoding without ever blocking: only a regular file of a bounded size
    /// (a FIFO named as a sound would block `sf_open` forever), with a header libsndfile
    /// reads and sane numbers. `sf_open_fd` takes the descriptor.
    fileprivate static func open(_ path: String) throws(Failure) -> (OpaquePointer, Info) {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw Failure(description: "\(path) is not a regular file; a sound must be a file")
        }
        guard Int64(status.st_size) <= maximumBytes else {
            close(descriptor)
            throw Failure(description: "\(path) is \(status.st_size >> 20) MiB; accepted: at most \(maximumBytes >> 20) MiB")
        }
        var info = SF_INFO()
        guard let file = sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else {
            throw Failure(description: "cannot decode \(path): \(String(cString: sf_strerror(nil)))")
        }
        let parsed = Info(channels: Int(info.channels), sampleRate: Int(info.samplerate), frames: Int(info.frames))
        guard (1...8).contains(parsed.channels), (8000...192_000).contains(parsed.sampleRate), parsed.frames > 0 else {
            sf_close(file)
            throw Failure(description: "\(path) has \(parsed.channels) channels at \(parsed.sampleRate) Hz and \(parsed.frames) frames; "
                + "accepted: 1 to 8 channels, 8 to 192 kHz, at least one frame")
        }
        guard parsed.duration <= maximumDuration else {
            sf_close(file)
            throw Failure(description: "\(path) lasts \(Int(parsed.duration / 60)) minutes; accepted: at most \(Int(maximumDuration / 60))")
        }
        return (file, parsed)
    }

    /// Checks that `path` can be played, reading only its header.
    static func check(_ path: String) throws(Failure) -> Info {
        let (file, info) = try open(path)
        sf_close(file)
        return info
    }

    /// A reader for `path`: from memory when `memory` holds its decoded sound, else a new one.
    static func reader(for path: String, memory: DecodedSound?) throws(Failure) -> any SoundReader {
        if let memory { return MemoryReader(memory) }
        return try FileReader(path: path)
    }
}

/// A short sound decoded into interleaved 32-bit float frames, leading silence trimmed.
final class DecodedSound: Sendable {
    let samples: [Float]
    let channels: Int
    let sampleRate: Int

    var frameCount: Int { samples.count / channels }
    var bytes: Int { samples.count * MemoryLayout<Float>.size }

    /// Decodes `path` when it fits the memory budget; `nil` when it is too long (stream it).
    static func decodeIfShort(_ path: String) throws(SoundFile.Failure) -> DecodedSound? {
        let (file, info) = try SoundFile.open(path)
        defer { sf_close(file) }
        guard info.frames * info.channels <= SoundFile.memoryBudgetSamples else { return nil }
        var buffer = [Float](repeating: 0, count: info.frames * info.channels)
        let read = buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(info.frames)) }
        guard read > 0 else { throw SoundFile.Failure(description: "\(path) decoded to no audio") }
        buffer.removeLast((info.frames - Int(read)) * info.channels)
        let firstAudible = buffer.firstIndex { abs($0) >= SoundFile.silenceThreshold } ?? 0
        return DecodedSound(samples: Array(buffer[(firstAudible / info.channels * info.channels)...]),
                            channels: info.channels, sampleRate: info.sampleRate)
    }

    private init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }
}

/// Interleaved float frames of a sound, looping from its first audible frame for ever.
protocol SoundReader: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Fills `frames` frames of `output`, wrapping around the sound's end.
    func read(into output: UnsafeMutablePointer<Float>, frames: Int)
}

/// Loops a sound decoded in memory; many readers share one decoded sound.
final class MemoryReader: SoundReader {
    private let sound: DecodedSound
    private var position = 0
    var channels: Int { sound.channels }
    var sampleRate: Int { sound.sampleRate }

    init(_ sound: DecodedSound) { self.sound = sound }

    func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
        sound.samples.withUnsafeBufferPointer { samples in
            let channels = sound.channels, total = sound.frameCount
            for frame in 0..<frames {
                for channel in 0..<channels { output[frame * channels + channel] = samples[position * channels + channel] }
                position += 1
                if position == total { position = 0 }
            }
        }
    }
}

/// Loops a long sound read from its file as it plays (`sf_readf_float`, `sf_seek` back to its
/// first audible frame at the end): a few kilobytes of memory whatever its length.
final class FileReader: SoundReader {
    /// `SNDFILE*`, owned.
    nonisolated(unsafe) private let file: OpaquePointer
    let channels: Int
    let sampleRate: Int
    private let start: sf_count_t

    init(path: String) throws(SoundFile.Failure) {
        let (file, info) = try SoundFile.open(path)
        self.file = file
        channels = info.channels
        sampleRate = info.sampleRate
        // The first audible frame, looked for in the first ten seconds.
        var probe = [Float](repeating: 0, count: min(info.frames, 10 * info.sampleRate) * info.channels)
        let read = probe.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t($0.count / info.channels)) }
        let first = probe.prefix(Int(max(read, 0)) * info.channels).firstIndex { abs($0) >= SoundFile.silenceThreshold } ?? 0
        start = sf_count_t(first / info.channels)
        sf_seek(file, start, SEEK_SET)
    }

    deinit { sf_close(file) }

    func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        var rewound = false
        while done < frames {
            let read = Int(sf_readf_float(file, output + done * channels, sf_count_t(frames - done)))
            if read > 0 {
                done += read
                rewound = false
                continue
            }
            // The end (or a read error): back to the first audible frame; silence if even that fails.
            guard !rewound, sf_seek(file, start, SEEK_SET) >= 0 else {
                (output + done * channels).update(repeating: 0, count: (frames - done) * channels)
                return
            }
            rewound = true
        }
    }
}
