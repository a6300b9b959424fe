import Foundation

extension TestSession {
    /// Runs `command` inside a bubblewrap sandbox whose `/.flatpak-info` names `appID`, as Flatpak
    /// makes one: a fresh root with the system's /usr, /etc and /opt (the Swift runtime), /tmp
    /// (the bus socket) and the test binaries.
    public func runSandboxed(_ appID: String, _ command: [String]) throws -> Subprocess.Result {
        let bwrap = try Subprocess.find("bwrap", package: "bubblewrap")
        let info = directory + "/\(appID).flatpak-info"
        try "[Application]\nname=\(appID)\nruntime=runtime/org.test.Platform/x86_64/1\n".write(toFile: info, atomically: true, encoding: .utf8)
        let sandbox = ["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--ro-bind", "/opt", "/opt",
                       "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                       "--bind", "/tmp", "/tmp", "--ro-bind", binaries, binaries,
                       "--proc", "/proc", "--dev", "/dev", "--ro-bind", info, "/.flatpak-info", "--"]
        return try Subprocess.run(bwrap, sandbox + command, environment: environment)
    }
}
