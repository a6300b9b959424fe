/// Reveille's version, shown by `--version` on both binaries.
package enum ReveilleVersion {
    package static let current = "0.9.0"
}
