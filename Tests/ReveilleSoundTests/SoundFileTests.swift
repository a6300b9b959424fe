import Foundation
@testable import ReveilleAgentRuntime
@testable import ReveilleSound
import Testing

/// Sound files read as they play, and changed under the reader.
@Suite("Sound files")
struct SoundFileTests {
    /// A 16-bit stereo WAV at `rate` of `seconds` of a square wave of `amplitude`, after `silence` seconds of silence.
    func writeWAV(_ path: String, seconds: Double, rate: Int = 48_000, amplitude: Int16 = 12_000, silence: Double = 0) throws {
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        func le16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(value).littleEndian, Array.init) }
        let frames = Int(seconds * Double(rate))
        var header: [UInt8] = Array("RIFF".utf8) + le32(36 + frames * 4) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(2)
        header += le32(rate) + le32(rate * 4) + le16(4) + le16(16) + Array("data".utf8) + le32(frames * 4)
        var samples = [Int16](repeating: 0, count: frames * 2)
        for frame in Int(silence * Double(rate))..<frames {
            samples[frame * 2] = frame / 50 % 2 == 0 ? amplitude : -amplitude
            samples[frame * 2 + 1] = samples[frame * 2]
        }
        try Data(header + samples.withUnsafeBytes { Array($0) }).write(to: URL(fileURLWithPath: path))
    }

    func peak(_ reader: any SoundReader, frames: Int) -> Float {
        var buffer = [Float](repeating: 0, count: frames * reader.channels)
        buffer.withUnsafeMutableBufferPointer { reader.read(into: $0.baseAddress!, frames: frames) }
        return buffer.map(abs).max() ?? 0
    }

    @Test func aFileTruncatedWhileItPlaysHandsOverToTheFallbackInItsFormat() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-soundfile-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeWAV(folder + "/song.wav", seconds: 2)
        try writeWAV(folder + "/default.wav", seconds: 0.5, rate: 44_100, amplitude: 3_000)
        let fallback = try #require(try DecodedSound.decodeIfShort(folder + "/default.wav"))
        let reader = try FileReader(path: folder + "/song.wav") { MemoryReader(fallback) }
        #expect(peak(reader, frames: 4_800) > 0.3, "the file itself")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/song.wav"))
        try handle.truncate(atOffset: 44)
        try handle.close()
        let after = peak(reader, frames: 48_000)
        #expect(after > 0.05 && after < 0.15, "the fallback, converted to 48 kHz: \(after)")
    }

    @Test func aSoundMustBeAudibleWithinItsFirstTenSeconds() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-soundfile-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try writeWAV(folder + "/late.wav", seconds: 12, silence: 9.5)
        #expect(try SoundFile.check(folder + "/late.wav").frames == 12 * 48_000, "audible after 9.5 s: accepted")
        try writeWAV(folder + "/later.wav", seconds: 12, silence: 10.5)
        let late = #expect(throws: SoundFile.Failure.self) { try SoundFile.check(folder + "/later.wav") }
        #expect(late?.description.hasSuffix("later.wav is silent for its first 10 seconds; accepted: a sound audible within them") == true)
        try writeWAV(folder + "/silent.wav", seconds: 10, silence: 10)
        let silent = #expect(throws: SoundFile.Failure.self) { try SoundFile.check(folder + "/silent.wav") }
        #expect(silent?.description.hasSuffix("silent.wav decodes to silence") == true)
    }
}
