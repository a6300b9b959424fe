import CGLib
import CSecret
import ReveilleBus

/// The CalDAV password in the Secret Service (GNOME Keyring, KWallet, KeePassXC), through
/// libsecret's asynchronous calls on the agent's loop: never in a file of Reveille's, and a
/// locked or missing keyring never blocks an alarm.
enum SecretStore {
    typealias Done<Value> = @GLibActor (Result<Value, SecretFailure>) -> Void

    struct SecretFailure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    @GLibActor
    static func store(_ password: String, url: String, user: String, done: @escaping Done<Void>) {
        let attributes = reveille_caldav_attributes(url, user)
        defer { g_hash_table_unref(attributes) }
        secret_password_storev(reveille_caldav_schema(), attributes, nil, "Reveille: CalDAV password for \(user)", password, nil,
                               { _, result, data in
            var error: UnsafeMutablePointer<GError>?
            let stored = secret_password_store_finish(result, &error) != 0
            finishSecret(data, stored ? .success(()) : .failure(secretFailure(error)))
        }, CallbackBox(done).retainedPointer)
    }

    /// The password, or `nil` when none is stored.
    @GLibActor
    static func lookup(url: String, user: String, done: @escaping Done<String?>) {
        let attributes = reveille_caldav_attributes(url, user)
        defer { g_hash_table_unref(attributes) }
        secret_password_lookupv(reveille_caldav_schema(), attributes, nil, { _, result, data in
            var error: UnsafeMutablePointer<GError>?
            let password = secret_password_lookup_finish(result, &error)
            defer { if let password { secret_password_free(password) } }
            finishSecret(data, error == nil ? .success(password.map { String(cString: $0) }) : .failure(secretFailure(error)))
        }, CallbackBox(done).retainedPointer)
    }

    @GLibActor
    static func clear(url: String, user: String, done: @escaping Done<Void>) {
        let attributes = reveille_caldav_attributes(url, user)
        defer { g_hash_table_unref(attributes) }
        secret_password_clearv(reveille_caldav_schema(), attributes, nil, { _, result, data in
            var error: UnsafeMutablePointer<GError>?
            _ = secret_password_clear_finish(result, &error)
            finishSecret(data, error == nil ? .success(()) : .failure(secretFailure(error)))
        }, CallbackBox(done).retainedPointer)
    }
}

/// The failure libsecret reported, its error freed.
private func secretFailure(_ error: UnsafeMutablePointer<GError>?) -> SecretStore.SecretFailure {
    defer { if let error { g_error_free(error) } }
    return SecretStore.SecretFailure(description: error.map { String(cString: $0.pointee.message) } ?? "the Secret Service did not answer")
}

/// Hands `result` to the callback boxed in `data`, on the loop, and releases the box.
private func finishSecret<Value: Sendable>(_ data: UnsafeMutableRawPointer?, _ result: Result<Value, SecretStore.SecretFailure>) {
    let done = CallbackBox<SecretStore.Done<Value>>.take(data)
    GLibActor.assumeIsolated { done(result) }
}
