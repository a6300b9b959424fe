import CGLib
import CSoup
import FoundationEssentials
import ReveilleBus
import ReveilleCalendar
import ReveilleLoop
import ReveilleSystem

/// One HTTP request as the CalDAV client makes it.
package struct HTTPRequest: Sendable {
    package var method: String
    package var url: String
    package var headers: [(String, String)] = []
    package var body: String?
    package var contentType = "application/xml; charset=utf-8"
}

/// A server's answer: status, the headers CalDAV needs, and the body (at most the bound asked for).
package struct HTTPResponse: Sendable {
    package var status: Int
    package var etag: String?
    package var body: [UInt8]

    package var text: String { String(decoding: body, as: UTF8.self) }
    package var succeeded: Bool { (200..<300).contains(status) }
}

/// libsoup 3 behind one function, on the agent's GLib loop: every request ends within
/// `deadline` seconds (a server that sends one byte a minute too) and reads at most
/// `maximumBytes` of a body (a larger `Content-Length` is refused before reading). The session
/// keeps no cookies and verifies certificates (libsoup's default): a failing one is an error.
/// libsoup is opened when the first client is made (sync set up), not linked: an agent without
/// sync maps none of it. Without it every request fails, naming the library and its package.
@GLibActor
package final class HTTPClient {
    /// libsoup's functions and the session (`SoupSession*`, owned), or why libsoup could not be loaded.
    nonisolated(unsafe) private let connection: Result<(soup: LibSoup, session: UnsafeMutablePointer<SoupSession>), HTTPFailure>
    package let deadline: UInt32

    package init(deadline: UInt32 = 20) {
        self.deadline = deadline
        connection = LibSoup.loaded.map { soup in
            let session = soup.sessionNew()!
            soup.sessionSetTimeout(session, deadline)
            soup.sessionSetIdleTimeout(session, 60)
            return (soup, session)
        }
    }

    deinit {
        if case .success(let (_, session)) = connection { g_object_unref(UnsafeMutableRawPointer(session)) }
    }

    package func send(_ request: HTTPRequest, maximumBytes: Int) async -> Result<HTTPResponse, HTTPFailure> {
        await withCheckedContinuation { continuation in
            send(request, maximumBytes: maximumBytes) { continuation.resume(returning: $0) }
        }
    }

    /// The state of one exchange while libsoup calls back.
    private final class Exchange {
        package let soup: LibSoup
        package let message: OpaquePointer
        package let cancellable: UnsafeMutablePointer<GCancellable>
        package let maximumBytes: Int
        package let done: @GLibActor (Result<HTTPResponse, HTTPFailure>) -> Void
        package var body: [UInt8] = []
        package var stream: UnsafeMutablePointer<GInputStream>?
        package var timer: UInt32 = 0
        package var finished = false
        package var timedOut = false

        package init(soup: LibSoup, message: OpaquePointer, maximumBytes: Int, done: @escaping @GLibActor (Result<HTTPResponse, HTTPFailure>) -> Void) {
            self.soup = soup
            self.message = message
            self.cancellable = g_cancellable_new()
            self.maximumBytes = maximumBytes
            self.done = done
        }

        deinit {
            if let stream { g_object_unref(UnsafeMutableRawPointer(stream)) }
            g_object_unref(UnsafeMutableRawPointer(cancellable))
            g_object_unref(UnsafeMutableRawPointer(message))
        }

        @GLibActor
        package func finish(_ result: Result<HTTPResponse, HTTPFailure>) {
            guard !finished else { return }
            finished = true
            if timer != 0 { MainLoopSources.remove(timer) }
            // Whatever is still reading stops; its callback then finds `finished`.
            g_cancellable_cancel(cancellable)
            done(result)
        }
    }

    private func send(_ request: HTTPRequest, maximumBytes: Int, done: @escaping @GLibActor (Result<HTTPResponse, HTTPFailure>) -> Void) {
        let soup: LibSoup, session: UnsafeMutablePointer<SoupSession>
        switch connection {
        case .success(let loaded): (soup, session) = loaded
        case .failure(let failure): return done(.failure(failure))
        }
        guard let message = soup.messageNew(request.method, request.url) else {
            return done(.failure(HTTPFailure(description: "\(request.url.prefix(200)) is not an http:// or https:// URL")))
        }
        let headers = soup.messageGetRequestHeaders(message)
        for (name, value) in request.headers { soup.messageHeadersAppend(headers, name, value) }
        if let body = request.body {
            let bytes = Array(body.utf8)
            let gbytes = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            soup.messageSetRequestBodyFromBytes(message, request.contentType, gbytes)
            g_bytes_unref(gbytes)
        }
        let exchange = Exchange(soup: soup, message: message, maximumBytes: maximumBytes, done: done)
        exchange.timer = MainLoopSources.after(milliseconds: deadline * 1000) { [exchange, deadline] in
            exchange.timer = 0
            exchange.timedOut = true
            exchange.finish(.failure(HTTPFailure(description: "no whole answer within \(deadline) s")))
        }
        soup.sessionSendAsync(session, message, G_PRIORITY_DEFAULT, exchange.cancellable, { source, result, userData in
            let exchange = Unmanaged<Exchange>.fromOpaque(userData!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let stream = exchange.soup.sessionSendFinish(UnsafeMutablePointer(OpaquePointer(source)), result, &error)
            GLibActor.assumeIsolated {
                guard let stream else {
                    let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                    if let error { g_error_free(error) }
                    return exchange.finish(.failure(HTTPFailure(description: text)))
                }
                exchange.stream = stream
                let length = exchange.soup.messageHeadersGetContentLength(exchange.soup.messageGetResponseHeaders(exchange.message))
                guard Int(length) <= exchange.maximumBytes else {
                    return exchange.finish(.failure(HTTPFailure(description: "the server announced \(length) bytes; at most \(exchange.maximumBytes) are read")))
                }
                HTTPClient.read(exchange)
            }
        }, Unmanaged.passRetained(exchange).toOpaque())
    }

    /// Reads the body in 64 KiB pieces until its end or past the bound.
    private static func read(_ exchange: Exchange) {
        guard !exchange.finished, let stream = exchange.stream else { return }
        g_input_stream_read_bytes_async(stream, 64 << 10, G_PRIORITY_DEFAULT, exchange.cancellable, { source, result, userData in
            let exchange = Unmanaged<Exchange>.fromOpaque(userData!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let bytes = g_input_stream_read_bytes_finish(UnsafeMutablePointer(OpaquePointer(source)), result, &error)
            GLibActor.assumeIsolated {
                defer { if let bytes { g_bytes_unref(bytes) } }
                guard let bytes else {
                    let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                    if let error { g_error_free(error) }
                    return exchange.finish(.failure(HTTPFailure(description: text)))
                }
                var size: gsize = 0
                let data = g_bytes_get_data(bytes, &size)
                guard size > 0 else {
                    let headers = exchange.soup.messageGetResponseHeaders(exchange.message)
                    let etag = exchange.soup.messageHeadersGetOne(headers, "ETag").map { String(cString: $0) }
                    return exchange.finish(.success(HTTPResponse(status: Int(exchange.soup.messageGetStatus(exchange.message).rawValue),
                                                                 etag: etag, body: exchange.body)))
                }
                guard exchange.body.count + Int(size) <= exchange.maximumBytes else {
                    return exchange.finish(.failure(HTTPFailure(description: "the server sent more than \(exchange.maximumBytes) bytes; the answer is refused")))
                }
                exchange.body += UnsafeRawBufferPointer(start: data, count: Int(size))
                HTTPClient.read(exchange)
            }
        }, Unmanaged.passRetained(exchange).toOpaque())
    }
}

/// The libsoup functions `HTTPClient` calls, looked up in libsoup-3.0.so.0 once, on first use.
/// Their types are libsoup's own declarations (CSoup's typedefs), so a changed signature does not compile.
private struct LibSoup: @unchecked Sendable { // Addresses of functions in a library never closed.
    /// libsoup, or what kept it from loading (said by sync's status, never at start).
    package static let loaded: Result<LibSoup, HTTPFailure> = Result { () throws(HTTPFailure) in
        do throws(SharedLibrary.Failure) { return try LibSoup(SharedLibrary("libsoup-3.0.so.0", neededBy: "sync needs it (Debian package libsoup-3.0-0)")) }
        catch { throw HTTPFailure(description: error.description) }
    }

    package let sessionNew: ReveilleSoupSessionNew
    package let sessionSetTimeout: ReveilleSoupSessionSetTimeout
    package let sessionSetIdleTimeout: ReveilleSoupSessionSetIdleTimeout
    package let sessionSendAsync: ReveilleSoupSessionSendAsync
    package let sessionSendFinish: ReveilleSoupSessionSendFinish
    package let messageNew: ReveilleSoupMessageNew
    package let messageGetRequestHeaders: ReveilleSoupMessageGetRequestHeaders
    package let messageGetResponseHeaders: ReveilleSoupMessageGetResponseHeaders
    package let messageSetRequestBodyFromBytes: ReveilleSoupMessageSetRequestBodyFromBytes
    package let messageGetStatus: ReveilleSoupMessageGetStatus
    package let messageHeadersAppend: ReveilleSoupMessageHeadersAppend
    package let messageHeadersGetOne: ReveilleSoupMessageHeadersGetOne
    package let messageHeadersGetContentLength: ReveilleSoupMessageHeadersGetContentLength

    private init(_ library: SharedLibrary) throws(SharedLibrary.Failure) {
        sessionNew = try library.function("soup_session_new")
        sessionSetTimeout = try library.function("soup_session_set_timeout")
        sessionSetIdleTimeout = try library.function("soup_session_set_idle_timeout")
        sessionSendAsync = try library.function("soup_session_send_async")
        sessionSendFinish = try library.function("soup_session_send_finish")
        messageNew = try library.function("soup_message_new")
        messageGetRequestHeaders = try library.function("soup_message_get_request_headers")
        messageGetResponseHeaders = try library.function("soup_message_get_response_headers")
        messageSetRequestBodyFromBytes = try library.function("soup_message_set_request_body_from_bytes")
        messageGetStatus = try library.function("soup_message_get_status")
        messageHeadersAppend = try library.function("soup_message_headers_append")
        messageHeadersGetOne = try library.function("soup_message_headers_get_one")
        messageHeadersGetContentLength = try library.function("soup_message_headers_get_content_length")
    }
}
