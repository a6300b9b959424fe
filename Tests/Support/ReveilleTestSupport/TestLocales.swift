import Foundation
import Glibc

/// Locales built by glibc's localedef for the tests that run the binaries in a language
/// (`LOCPATH` names the folder, `LC_ALL` the locale), as a user's installed locale would be.
///
/// localedef takes about a second of CPU per locale, and several tests need the same one: each
/// is built once into a folder beside the test binaries (named by glibc's version, whose
/// locale format it is) and kept for later runs. A locale appears there whole or not at all:
/// it is built in a folder of its own and renamed into place.
public enum TestLocales {
    private static let lock = NSLock()

    /// The folder that holds `locale` (such as `de_DE.UTF-8`), which is built there if missing.
    public static func folder(with locale: String) throws -> String {
        let folder = try TestSession.findBinaries() + "/test-locales/glibc-" + String(cString: gnu_get_libc_version())
        let target = folder + "/" + locale
        lock.lock()
        defer { lock.unlock() }
        if FileManager.default.fileExists(atPath: target + "/LC_CTYPE") { return folder }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let building = folder + "/.building-\(getpid())-" + locale
        try? FileManager.default.removeItem(atPath: building)
        let made = try Subprocess.run(try Subprocess.find("localedef", package: "libc-bin"),
                                      ["-i", String(locale.prefix(while: { $0 != "." })), "-f", "UTF-8", building], environment: [:],
                                      // A second of CPU alone; under CI's whole run, two locales at once took over 20 s.
                                      timeout: 120)
        guard made.status == 0 else {
            try? FileManager.default.removeItem(atPath: building)
            throw Subprocess.Failure("localedef could not build \(locale) (it needs the Debian package locales): \(made.stderr)")
        }
        // Another run may have put it in place meanwhile: keep theirs.
        if rename(building, target) != 0 { try? FileManager.default.removeItem(atPath: building) }
        return folder
    }
}

/// glibc's version (gnu/libc-version.h, which the Glibc module does not import).
@_silgen_name("gnu_get_libc_version")
private func gnu_get_libc_version() -> UnsafePointer<CChar>
