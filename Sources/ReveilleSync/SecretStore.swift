import CGLib
import CSecret
import ReveilleBus
import ReveilleLoop
import ReveilleSystem

/// The CalDAV password in the Secret Service (GNOME Keyring, KWallet, KeePassXC), through
/// libsecret's asynchronous calls on the agent's loop: never in a file of Reveille's, and a
/// locked or missing keyring never blocks an alarm. libsecret is opened on the first call (sync
/// set up), not linked; without it each call fails (on the loop, as an answer would), naming it.
package enum SecretStore {
    package typealias Done<Value> = @GLibActor (Result<Value, SecretFailure>) -> Void

    package struct SecretFailure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    @GLibActor
    package static func store(_ password: String, url: String, user: String, done: @escaping Done<Void>) {
        call(url: url, user: user, done: done) { secret, schema, attributes, callback, data in
            secret.passwordStore(schema, attributes, nil, "Reveille: CalDAV password for \(user)", password, nil, callback, data)
        } finish: { secret, result, error in
            secret.passwordStoreFinish(result, &error) != 0 ? () : nil
        }
    }

    /// The password, or `nil` when none is stored.
    @GLibActor
    package static func lookup(url: String, user: String, done: @escaping Done<String?>) {
        call(url: url, user: user, done: done) { secret, schema, attributes, callback, data in
            secret.passwordLookup(schema, attributes, nil, callback, data)
        } finish: { secret, result, error -> String?? in
            let password = secret.passwordLookupFinish(result, &error)
            defer { if let password { secret.passwordFree(password) } }
            return error == nil ? .some(password.map { String(cString: $0) }) : nil
        }
    }

    @GLibActor
    package static func clear(url: String, user: String, done: @escaping Done<Void>) {
        call(url: url, user: user, done: done) { secret, schema, attributes, callback, data in
            secret.passwordClear(schema, attributes, nil, callback, data)
        } finish: { secret, result, error in
            _ = secret.passwordClearFinish(result, &error)
            return error == nil ? () : nil
        }
    }

    /// One asynchronous libsecret call for the account (`url`, `user`): `start` makes it with the
    /// schema, the account's attributes and the callback; `finish` reads its result (`nil` when it
    /// failed, with `error` set), handed to `done` on the loop. Without libsecret, `done` hears why.
    @GLibActor
    private static func call<Value>(url: String, user: String, done: @escaping Done<Value>,
                                    start: (LibSecret, UnsafePointer<SecretSchema>, OpaquePointer, GAsyncReadyCallback, UnsafeMutableRawPointer) -> Void,
                                    finish: @escaping (LibSecret, OpaquePointer?, inout UnsafeMutablePointer<GError>?) -> Value?) {
        let secret: LibSecret
        switch LibSecret.loaded {
        case .success(let loaded): secret = loaded
        case .failure(let failure):
            _ = MainLoopSources.after(milliseconds: 0) { done(.failure(failure)) }
            return
        }
        let attributes = reveille_caldav_attributes(url, user)!
        defer { g_hash_table_unref(attributes) }
        let finished: Finished = { result in
            var error: UnsafeMutablePointer<GError>?
            let value = finish(secret, result, &error)
            done(value.map { .success($0) } ?? .failure(secretFailure(error)))
        }
        start(secret, reveille_caldav_schema(), attributes, { _, result, data in
            let finished = CallbackBox<Finished>.take(data)
            GLibActor.assumeIsolated { finished(result) }
        }, CallbackBox(finished).retainedPointer)
    }

    /// What a call does with libsecret's answer (its `GAsyncResult*`), on the loop.
    private typealias Finished = @GLibActor (OpaquePointer?) -> Void
}

/// The failure libsecret reported, its error freed.
private func secretFailure(_ error: UnsafeMutablePointer<GError>?) -> SecretStore.SecretFailure {
    defer { if let error { g_error_free(error) } }
    return SecretStore.SecretFailure(description: error.map { String(cString: $0.pointee.message) } ?? "the Secret Service did not answer")
}

/// The libsecret functions `SecretStore` calls, looked up in libsecret-1.so.0 once, on first use.
/// Their types are libsecret's own declarations (CSecret's typedefs), so a changed signature does not compile.
private struct LibSecret: @unchecked Sendable { // Addresses of functions in a library never closed.
    /// libsecret, or what kept it from loading (said by sync's status, never at start).
    package static let loaded: Result<LibSecret, SecretStore.SecretFailure> = Result { () throws(SecretStore.SecretFailure) in
        do throws(SharedLibrary.Failure) { return try LibSecret(SharedLibrary("libsecret-1.so.0", neededBy: "sync needs it (Debian package libsecret-1-0)")) }
        catch { throw SecretStore.SecretFailure(description: error.description) }
    }

    package let passwordStore: ReveilleSecretPasswordStore
    package let passwordStoreFinish: ReveilleSecretPasswordStoreFinish
    package let passwordLookup: ReveilleSecretPasswordLookup
    package let passwordLookupFinish: ReveilleSecretPasswordLookupFinish
    package let passwordFree: ReveilleSecretPasswordFree
    package let passwordClear: ReveilleSecretPasswordClear
    package let passwordClearFinish: ReveilleSecretPasswordClearFinish

    private init(_ library: SharedLibrary) throws(SharedLibrary.Failure) {
        passwordStore = try library.function("secret_password_storev")
        passwordStoreFinish = try library.function("secret_password_store_finish")
        passwordLookup = try library.function("secret_password_lookupv")
        passwordLookupFinish = try library.function("secret_password_lookup_finish")
        passwordFree = try library.function("secret_password_free")
        passwordClear = try library.function("secret_password_clearv")
        passwordClearFinish = try library.function("secret_password_clear_finish")
    }
}
