import ReveilleSystem
import Testing

/// Libraries opened on demand (libical, libsoup, libsecret): a missing library or function is an
/// error naming it and what needs it, never a crash at start.
@Suite("Shared libraries opened on demand")
struct SharedLibraryTests {
    @Test func aMissingLibraryIsNamedWithWhatNeedsIt() {
        #expect {
            try SharedLibrary("libreveille-missing.so.0", neededBy: "sync needs it (Debian package reveille-missing)")
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("libreveille-missing.so.0 could not be loaded (") && text.hasSuffix("; sync needs it (Debian package reveille-missing)")
        }
    }

    @Test func aFunctionIsFoundWithItsCType() throws {
        let libc = try SharedLibrary("libc.so.6", neededBy: "the test needs it")
        let length: @convention(c) (UnsafePointer<CChar>?) -> Int = try libc.function("strlen")
        #expect(length("reveille") == 8)
    }

    @Test func aMissingFunctionIsNamed() throws {
        let libc = try SharedLibrary("libc.so.6", neededBy: "the test needs it")
        #expect {
            let _: @convention(c) () -> Void = try libc.function("reveille_no_such_function")
        } throws: { error in
            String(describing: error) == "libc.so.6 has no function reveille_no_such_function; the test needs it"
        }
    }
}
