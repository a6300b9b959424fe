import Foundation

extension TestSession {
    /// Runs `command` inside a bubblewrap sandbox whose `/.flatpak-info` names `appID`, as Flatpak
    /// makes one: a fresh root with the system's /usr, /etc and /opt (the Swift runtime), /tmp
    /// (the bus socket) and the test binaries.
    public func runSandboxed(_ appID: String, _ command: [String]) throws -> Subprocess.Result {
        let sandboxed = try sandbox(appID) + command
        return try Subprocess.run(sandboxed[0], Array(sandboxed.dropFirst()), environment: environment)
    }

    /// The bubblewrap command line `runSandboxed` runs a command behind (for one started in the background).
    public func sandbox(_ appID: String) throws -> [String] {
        let bwrap = try Subprocess.find("bwrap", package: "bubblewrap")
        let info = directory + "/\(appID).flatpak-info"
        try "[Application]\nname=\(appID)\nruntime=runtime/org.test.Platform/x86_64/1\n".write(toFile: info, atomically: true, encoding: .utf8)
        return [bwrap, "--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--ro-bind", "/opt", "/opt",
                "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                "--bind", "/tmp", "/tmp", "--ro-bind", binaries, binaries,
                "--proc", "/proc", "--dev", "/dev", "--ro-bind", info, "/.flatpak-info", "--"]
    }
}
