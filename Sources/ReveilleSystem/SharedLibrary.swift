import Glibc

/// A C library opened when first needed (`dlopen`), not linked: a part few runs use (a
/// calendar's reader, sync's HTTP and Secret Service clients) then costs the others neither
/// the library nor what it brings in. Opened once and never closed, so the functions looked up
/// stay valid for the life of the process.
package struct SharedLibrary: @unchecked Sendable { // A handle never closed.
    /// Why a library or one of its functions could not be had, and what needs it.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The library's soname: the ABI its callers' declarations describe.
    package let soname: String
    /// What needs the library and where it comes from, for the errors ("sync needs it (Debian package libsoup-3.0-0)").
    private let neededBy: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `soname`; `neededBy` completes the error: "… could not be loaded (reason); \(neededBy)".
    package init(_ soname: String, neededBy: String) throws(Failure) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? soname
            throw Failure(description: "\(soname) could not be loaded (\(reason)); \(neededBy)")
        }
        self.soname = soname
        self.neededBy = neededBy
        self.handle = handle
    }

    /// The function `name`, typed as its C declaration (`Function`, a C function pointer type).
    package func function<Function>(_ name: String) throws(Failure) -> Function {
        guard let address = dlsym(handle, name) else {
            throw Failure(description: "\(soname) has no function \(name); \(neededBy)")
        }
        return unsafeBitCast(address, to: Function.self)
    }
}
