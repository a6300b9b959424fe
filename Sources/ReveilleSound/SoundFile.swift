import CSndfile
import FoundationEssentials
import ReveilleCore
import ReveilleSystem
import SystemPackage

/// Sound files through libsndfile, the only file that calls it: it reads WAV, FLAC, Ogg
/// Vorbis/Opus and the rest it knows. Short sounds are decoded once into memory; long ones
/// (a song as an alarm) are read from their file as they play, so memory stays bounded
/// whatever the file claims to hold.
package enum SoundFile {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The largest file accepted, in bytes.
    package static let maximumBytes: Int64 = 512 << 20
    /// The longest sound accepted.
    package static let maximumDuration: TimeInterval = 3600
    /// Sounds up to this many samples (all channels) are decoded into memory: 16 MiB of floats.
    package static let memoryBudgetSamples = 4 << 20
    /// Below this (about −60 dBFS) a leading sample counts as silence.
    package static let silenceThreshold: Float = 0.001

    /// What the file's header says.
    package struct Info: Sendable {
        package var channels: Int
        package var sampleRate: Int
        package var frames: Int
        package var duration: TimeInterval { Double(frames) / Double(sampleRate) }
    }

    /// Opens `path` for decoding without ever blocking: only a regular file of a bounded size
    /// (a FIFO named as a sound would block `sf_open` forever), with a header libsndfile
    /// reads and sane numbers. `sf_open_fd` takes the descriptor. The version is the opened
    /// file's own (`fstat`), so what is decoded and the version it is kept under agree.
    fileprivate static func open(_ path: String) throws(Failure) -> (OpaquePointer, Info, FileVersion) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.nonBlocking, .closeOnExec, .noControllingTerminal])
        } catch {
            throw Failure(description: "cannot open \(path): \(error)")
        }
        guard let status = try? descriptor.status(), status.kind == .regular else {
            try? descriptor.close()
            throw Failure(description: "\(path) is not a regular file; a sound must be a file")
        }
        guard Int64(status.size) <= maximumBytes else {
            try? descriptor.close()
            throw Failure(description: "\(path) is \(status.size >> 20) MiB; accepted: at most \(maximumBytes >> 20) MiB")
        }
        let version = FileVersion(status)
        var info = SF_INFO()
        guard let file = sf_open_fd(descriptor.rawValue, Int32(SFM_READ), &info, 1) else {
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
        return (file, parsed, version)
    }

    /// Checks that `path` can be played: its header, and that its first seconds are not all
    /// silence (a file that is nothing but silence would ring nothing).
    package static func check(_ path: String) throws(Failure) -> Info {
        let (file, info, _) = try open(path)
        defer { sf_close(file) }
        _ = try firstAudibleFrame(file, info, path: path)
        return info
    }

    /// How far into the file its first audible frame is, looked for in its first ten seconds
    /// (the file is left positioned after them). Throws when nothing is audible in them: the
    /// file decodes to nothing or to silence, or would keep an alarm silent that long.
    fileprivate static func firstAudibleFrame(_ file: OpaquePointer, _ info: Info, path: String) throws(Failure) -> Int {
        let wanted = min(info.frames, probeSeconds * info.sampleRate)
        var probe = [Float](repeating: 0, count: wanted * info.channels)
        let read = Int(max(0, probe.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(wanted)) }))
        if let first = probe.prefix(read * info.channels).firstIndex(where: { abs($0) >= silenceThreshold }) { return first / info.channels }
        if read == 0 { throw Failure(description: "\(path) decodes to no audio") }
        guard read == wanted, info.frames > wanted else { throw Failure(description: "\(path) decodes to silence") }
        throw Failure(description: "\(path) is silent for its first \(probeSeconds) seconds; accepted: a sound audible within them")
    }

    /// How long a sound may be silent at its start.
    package static let probeSeconds = 10
}

/// Which contents of a file a sound was read from: `fstat`'s device, inode, size and
/// modification time. A file rewritten, truncated or replaced since has another version.
package struct FileVersion: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modifiedSeconds: Int
    package var modifiedNanoseconds: Int

    package init(_ status: FileStatus) {
        device = status.identity.device
        inode = status.identity.inode
        size = Int64(status.size)
        modifiedSeconds = status.modifiedSeconds
        modifiedNanoseconds = status.modifiedNanoseconds
    }

    /// The file at `path` as it is now (`stat`); `nil` when it cannot be looked at.
    package init?(path: String) {
        guard let status = try? FilePath(path).status() else { return nil }
        self.init(status)
    }
}

/// The sounds alarms ring: short ones decoded once and kept (at most `budget` bytes in all),
/// each under its path *and* its file's version, so a file changed since it was decoded
/// (rewritten, truncated, replaced) is decoded again; long ones are read from the file as
/// they play. A file that cannot be played, or decodes to silence, is never rung: the next
/// candidate is (the default sound), so an alarm is never silent because of its file.
package final class SoundCache {
    /// The most decoded sound kept in memory, in bytes.
    package static let budget = 64 << 20
    private var decoded: [String: DecodedSound] = [:]
    /// Files too long to keep in memory (read as they play), with the version that was.
    private var streamed: [String: FileVersion] = [:]

    /// A reader for `path` as the file is now; a long one hands over to `fallback` if the file
    /// stops giving sound while it plays.
    package func reader(for path: String, fallback: @escaping () -> (any SoundReader)? = { nil }) throws(SoundFile.Failure) -> any SoundReader {
        let current = FileVersion(path: path)
        if let sound = decoded[path], sound.version == current { return MemoryReader(sound) }
        decoded[path] = nil
        if current == nil || streamed[path] != current {
            streamed[path] = nil
            if let sound = try DecodedSound.decodeIfShort(path) {
                if decoded.values.reduce(sound.bytes, { $0 + $1.bytes }) > Self.budget { decoded = [:] }
                decoded[path] = sound
                return MemoryReader(sound)
            }
        }
        let reader = try FileReader(path: path, fallback: fallback)
        streamed[path] = reader.version
        return reader
    }

    /// The first of `paths` that can be played, with its reader; each one that cannot is told to
    /// `failed`. Should the file stop giving sound as it plays, the next of `paths` that can takes over.
    package func firstPlayable(_ paths: [String], failed: @escaping (SoundFile.Failure) -> Void) -> (path: String, reader: any SoundReader)? {
        for (index, path) in paths.enumerated() {
            let rest = Array(paths[(index + 1)...])
            do {
                return (path, try reader(for: path) { [weak self] in self?.firstPlayable(rest, failed: failed)?.reader })
            } catch {
                failed(error)
            }
        }
        return nil
    }
}

/// A short sound decoded into interleaved 32-bit float frames, leading silence trimmed.
package final class DecodedSound: Sendable {
    package let samples: [Float]
    package let channels: Int
    package let sampleRate: Int
    /// The file's version it was decoded from.
    package let version: FileVersion

    package var frameCount: Int { samples.count / channels }
    package var bytes: Int { samples.count * MemoryLayout<Float>.size }

    /// Decodes `path` when it fits the memory budget; `nil` when it is too long (stream it).
    /// No more than the header's frames are read (at most `maximumDuration` × rate × channels
    /// samples). A decode cut short (a file truncated or damaged mid-way) keeps what it read
    /// when that is audible; one that yields nothing audible throws.
    package static func decodeIfShort(_ path: String) throws(SoundFile.Failure) -> DecodedSound? {
        let (file, info, version) = try SoundFile.open(path)
        defer { sf_close(file) }
        guard info.frames * info.channels <= SoundFile.memoryBudgetSamples else { return nil }
        var buffer = [Float](repeating: 0, count: info.frames * info.channels)
        let read = Int(max(0, buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(info.frames)) }))
        buffer.removeLast((info.frames - read) * info.channels)
        guard let firstAudible = buffer.firstIndex(where: { abs($0) >= SoundFile.silenceThreshold }) else {
            throw SoundFile.Failure(description: read == 0 ? "\(path) decodes to no audio" : "\(path) decodes to silence")
        }
        return DecodedSound(samples: Array(buffer[(firstAudible / info.channels * info.channels)...]),
                            channels: info.channels, sampleRate: info.sampleRate, version: version)
    }

    private init(samples: [Float], channels: Int, sampleRate: Int, version: FileVersion) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
        self.version = version
    }
}

/// Interleaved float frames of a sound, looping from its first audible frame for ever.
package protocol SoundReader: AnyObject {
    var channels: Int { get }
    var sampleRate: Int { get }
    /// Fills `frames` frames of `output`, wrapping around the sound's end.
    func read(into output: UnsafeMutablePointer<Float>, frames: Int)
}

/// Loops a sound decoded in memory; many readers share one decoded sound.
package final class MemoryReader: SoundReader {
    private let sound: DecodedSound
    private var position = 0
    package var channels: Int { sound.channels }
    package var sampleRate: Int { sound.sampleRate }

    package init(_ sound: DecodedSound) { self.sound = sound }

    package func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
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
/// first audible frame at the end): a few kilobytes of memory whatever its length. A file that
/// changes under it (truncated, rewritten) so that a whole pass reads nothing audible hands over
/// to `fallback` (the default sound), converted to this stream's format: never silence.
package final class FileReader: SoundReader {
    /// `SNDFILE*`, owned.
    nonisolated(unsafe) private let file: OpaquePointer
    package let channels: Int
    package let sampleRate: Int
    package let version: FileVersion
    private let start: sf_count_t
    private let fallback: () -> (any SoundReader)?
    /// What plays instead once the file rang nothing audible for a whole pass.
    private var replacement: (any SoundReader)?
    /// Whether anything audible was read since the pass began.
    private var audibleThisPass = true

    package init(path: String, fallback: @escaping () -> (any SoundReader)? = { nil }) throws(SoundFile.Failure) {
        let (file, info, version) = try SoundFile.open(path)
        let first: Int
        do { first = try SoundFile.firstAudibleFrame(file, info, path: path) } catch {
            sf_close(file)
            throw error
        }
        self.file = file
        self.version = version
        self.fallback = fallback
        channels = info.channels
        sampleRate = info.sampleRate
        start = sf_count_t(first)
        sf_seek(file, start, SEEK_SET)
    }

    deinit { sf_close(file) }

    package func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            if let replacement { return replacement.read(into: output + done * channels, frames: frames - done) }
            let read = Int(sf_readf_float(file, output + done * channels, sf_count_t(frames - done)))
            if read > 0 {
                audibleThisPass = audibleThisPass
                    || UnsafeBufferPointer(start: output + done * channels, count: read * channels).contains { abs($0) >= SoundFile.silenceThreshold }
                done += read
                continue
            }
            // The end (or a read error): back to the first audible frame for another pass, unless
            // the last pass was silent: then the default sound plays, or silence if there is none.
            guard audibleThisPass, sf_seek(file, start, SEEK_SET) >= 0 else {
                guard let sound = fallback() else {
                    (output + done * channels).update(repeating: 0, count: (frames - done) * channels)
                    return
                }
                replacement = ConvertedReader(sound, channels: channels, sampleRate: sampleRate)
                continue
            }
            audibleThisPass = false
        }
    }
}

/// Another sound played in a stream's format: its channels mapped (a mono sound on every
/// channel, else channel by channel, the first for any it lacks) and its rate converted by
/// linear interpolation.
package final class ConvertedReader: SoundReader {
    package let channels: Int
    package let sampleRate: Int
    private let source: any SoundReader
    /// Source frames to convert from: the one at or before the position, and the one after.
    private var before: [Float]
    private var after: [Float]
    /// Where between `before` (0) and `after` (1) the next output frame falls.
    private var position = 0.0
    private let step: Double

    package init(_ source: any SoundReader, channels: Int, sampleRate: Int) {
        self.source = source
        self.channels = channels
        self.sampleRate = sampleRate
        step = Double(source.sampleRate) / Double(sampleRate)
        before = [Float](repeating: 0, count: source.channels)
        after = before
        before.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, frames: 1) }
        after.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, frames: 1) }
    }

    package func read(into output: UnsafeMutablePointer<Float>, frames: Int) {
        let sourceChannels = source.channels
        for frame in 0..<frames {
            while position >= 1 {
                swap(&before, &after)
                after.withUnsafeMutableBufferPointer { source.read(into: $0.baseAddress!, frames: 1) }
                position -= 1
            }
            for channel in 0..<channels {
                let from = channel < sourceChannels ? channel : 0
                output[frame * channels + channel] = before[from] + (after[from] - before[from]) * Float(position)
            }
            position += step
        }
    }
}
