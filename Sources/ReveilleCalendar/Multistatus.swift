import CGLib
import FoundationEssentials
import ReveilleCore
import ReveilleRules

/// Why a request got no answer or its answer was refused: the network, TLS, the time bound,
/// the size bound, or an answer that could not be read, in words.
package struct HTTPFailure: Error, Equatable, Sendable, CustomStringConvertible {
    package var description: String
    package init(description: String) { self.description = description }
}

/// A WebDAV multistatus answer (RFC 4918 13), as CalDAV's PROPFIND and REPORT give it: per
/// resource its href, its status (404: gone, in a sync report), ETag and calendar data; and the
/// collection's new sync token (RFC 6578). Read by GLib's GMarkup, which expands no entities
/// of a DTD (no "billion laughs"); names are resolved by their namespace, not their prefix.
package struct Multistatus: Sendable, Equatable {
    package struct Response: Sendable, Equatable {
        package var href: String
        package var status: Int?
        package var etag: String?
        package var calendarData: String?
        package var displayName: String?
        package var isCalendar = false
    }

    package var responses: [Response] = []
    package var syncToken: String?

    /// At most this many responses, and elements this deep: past them the answer is refused.
    package static let maximumResponses = 20_000
    package static let maximumDepth = 32

    package static func parse(_ text: String) throws(HTTPFailure) -> Multistatus {
        let reader = Reader()
        var parser = GMarkupParser(start_element: { _, name, names, values, data, _ in
            Unmanaged<Reader>.fromOpaque(data!).takeUnretainedValue().start(name!, names!, values!)
        }, end_element: { _, name, data, _ in
            Unmanaged<Reader>.fromOpaque(data!).takeUnretainedValue().end()
        }, text: { _, text, length, data, _ in
            Unmanaged<Reader>.fromOpaque(data!).takeUnretainedValue().text(text!, Int(length))
        }, passthrough: nil, error: nil)
        let context = g_markup_parse_context_new(&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, Unmanaged.passUnretained(reader).toOpaque(), nil)
        defer { g_markup_parse_context_free(context) }
        var error: UnsafeMutablePointer<GError>?
        let bytes = Array(text.utf8)
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_markup_parse_context_parse(context, $0.baseAddress, gssize($0.count), &error) != 0 }
        } && g_markup_parse_context_end_parse(context, &error) != 0
        if let failure = reader.failure { if let error { g_error_free(error) }; throw HTTPFailure(description: failure) }
        guard parsed else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "malformed"
            if let error { g_error_free(error) }
            throw HTTPFailure(description: "the server's XML could not be read: \(message.prefix(200))")
        }
        guard reader.sawMultistatus else { throw HTTPFailure(description: "the server's answer is not a WebDAV multistatus") }
        return reader.result
    }

    /// GMarkup's callbacks, collecting as they go; a bound passed is kept as `failure`.
    private final class Reader {
        var result = Multistatus()
        var failure: String?
        var sawMultistatus = false
        /// Per open element: its namespace scope (prefix → URI) and its resolved name.
        var scopes: [[String: String]] = [[:]]
        var names: [String] = []
        var current: Response?
        var buffer = ""

        static let dav = "DAV:", caldav = "urn:ietf:params:xml:ns:caldav"

        func start(_ qualified: UnsafePointer<CChar>, _ attributeNames: UnsafeMutablePointer<UnsafePointer<CChar>?>,
                   _ attributeValues: UnsafeMutablePointer<UnsafePointer<CChar>?>) {
            guard failure == nil else { return }
            var scope = scopes.last ?? [:]
            var index = 0
            while let name = attributeNames[index], let value = attributeValues[index] {
                let attribute = String(cString: name)
                if attribute == "xmlns" { scope[""] = String(cString: value) }
                else if attribute.hasPrefix("xmlns:") { scope[String(attribute.dropFirst(6))] = String(cString: value) }
                index += 1
            }
            let name = Self.resolve(String(cString: qualified), in: scope)
            scopes.append(scope)
            names.append(name)
            buffer = ""
            guard names.count <= Multistatus.maximumDepth else { failure = "the server's XML nests deeper than \(Multistatus.maximumDepth)"; return }
            switch name {
            case Self.dav + "multistatus": sawMultistatus = true
            case Self.dav + "response":
                guard result.responses.count < Multistatus.maximumResponses else {
                    failure = "the server's answer lists more than \(Multistatus.maximumResponses) resources"
                    return
                }
                current = Response(href: "")
            case Self.caldav + "calendar": if names.dropLast().contains(Self.dav + "resourcetype") { current?.isCalendar = true }
            default: break
            }
        }

        func end() {
            guard failure == nil, let name = names.popLast() else { return }
            scopes.removeLast()
            let value = buffer.trimmed()
            switch name {
            case Self.dav + "href" where names.last == Self.dav + "response": current?.href = value
            case Self.dav + "status" where names.last == Self.dav + "response":
                current?.status = value.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            case Self.dav + "getetag": current?.etag = value
            case Self.caldav + "calendar-data": current?.calendarData = buffer
            case Self.dav + "displayname": current?.displayName = value
            case Self.dav + "sync-token" where names.last == Self.dav + "multistatus": result.syncToken = value
            case Self.dav + "response":
                if let current { result.responses.append(current) }
                current = nil
            default: break
            }
            buffer = ""
        }

        func text(_ pointer: UnsafePointer<CChar>, _ length: Int) {
            guard failure == nil else { return }
            buffer += String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
        }

        /// `d:href` with `d` bound to `DAV:` → `DAV:href`.
        static func resolve(_ qualified: String, in scope: [String: String]) -> String {
            guard let colon = qualified.firstIndex(of: ":") else { return (scope[""] ?? "") + qualified }
            return (scope[String(qualified[..<colon])] ?? "") + qualified[qualified.index(after: colon)...]
        }
    }
}
