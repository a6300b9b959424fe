import FoundationEssentials
import ReveilleBus
import ReveilleCalendar
import ReveilleLoop

/// One CalDAV calendar collection (RFC 4791) through `HTTPClient`: made with a description
/// saying what it is, its changes since a sync token (RFC 6578), its events fetched, written
/// and removed under ETags (`If-Match`, `If-None-Match: *`), so a concurrent change is never
/// overwritten unseen. Every answer is bounded in size.
@GLibActor
package final class CalDAVCollection {
    /// The collection's URL, ending in `/`.
    package let url: String
    private let authorization: String
    private let http: HTTPClient

    /// A sync report or multiget answer, in bytes: 10,000 alarms' events and their hrefs.
    package static let maximumReportBytes = 16 << 20
    /// Any other answer (a PROPFIND, a PUT's), in bytes.
    package static let maximumSmallBytes = 256 << 10
    /// An event's name and ETag as kept per alarm in `sync.json`, in bytes; an event with a
    /// longer one is no event of the collection (Reveille's names are 40 bytes).
    package static let maximumNameBytes = 255, maximumETagBytes = 256

    package init(url: String, user: String, password: String, http: HTTPClient) {
        self.url = url.hasSuffix("/") ? url : url + "/"
        authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        self.http = http
    }

    /// A change on the server: an event there now with its ETag, or one gone.
    package typealias Change = ListedChange

    /// What a write ran into.
    package enum WriteFailure: Error, Equatable {
        /// 412: the event changed (or appeared) on the server since the ETag given.
        case conflict
        case failed(String)
    }

    /// Makes the collection (MKCALENDAR), named and described so a desktop calendar shows what
    /// it is; one that is there already is kept.
    package func create(displayName: String, description: String) async -> Result<Void, HTTPFailure> {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>\
            <D:displayname>\(Self.escaped(displayName))</D:displayname>\
            <C:calendar-description>\(Self.escaped(description))</C:calendar-description>\
            <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>\
            </D:prop></D:set></C:mkcalendar>
            """
        var answer = await send("MKCALENDAR", url, body: body, maximumBytes: Self.maximumSmallBytes)
        if case .success(let response) = answer, response.status == 409 {
            // 409: the home the collection goes in is not there yet. Radicale makes a user's home
            // when it is first visited: visit it, then ask once more.
            _ = await send("PROPFIND", parent, body: nil, depth: "0", maximumBytes: Self.maximumSmallBytes)
            answer = await send("MKCALENDAR", url, body: body, maximumBytes: Self.maximumSmallBytes)
        }
        switch answer {
        case .failure(let failure): return .failure(failure)
        case .success(let response):
            // 405 (RFC 4791), or 409 from Radicale: something is there already; PROPFIND says
            // whether it is a calendar.
            if response.succeeded { return .success(()) }
            guard response.status == 405 || response.status == 409 else { return .failure(Self.unexpected(response, "MKCALENDAR")) }
            return await isCalendar()
        }
    }

    /// Whether the URL is a calendar collection (PROPFIND, depth 0).
    package func isCalendar() async -> Result<Void, HTTPFailure> {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:displayname/></D:prop></D:propfind>
            """
        switch await multistatus("PROPFIND", url, body: body, depth: "0", maximumBytes: Self.maximumSmallBytes) {
        case .failure(let failure): return .failure(failure)
        case .success(let answer):
            guard answer.responses.contains(where: \.isCalendar) else {
                return .failure(HTTPFailure(description: "\(url) is not a calendar collection"))
            }
            return .success(())
        }
    }

    /// What changed since `token` (everything when `nil`), and the token to ask with next.
    package func changes(since token: String?) async -> Result<(changes: [Change], token: String?), HTTPFailure> {
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <D:sync-collection xmlns:D="DAV:"><D:sync-token>\(Self.escaped(token ?? ""))</D:sync-token>\
            <D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>
            """
        switch await multistatus("REPORT", url, body: body, depth: nil, maximumBytes: Self.maximumReportBytes) {
        case .failure(let failure): return .failure(failure)
        case .success(let answer):
            // An href outside the collection is no event of it (the server chose it: a DELETE
            // there would carry the password elsewhere).
            let changes = answer.responses.compactMap { response -> Change? in
                guard let href = event(response.href), href.hasSuffix(".ics"),
                      (response.etag?.utf8.count ?? 0) <= Self.maximumETagBytes else { return nil }
                if response.status == 404 { return .removed(href: href) }
                return .present(href: href, etag: response.etag ?? "")
            }
            return .success((changes, answer.syncToken))
        }
    }

    /// The events at `hrefs` (calendar-multiget), each with its ETag and text.
    package func fetch(_ hrefs: [String]) async -> Result<[(href: String, etag: String?, text: String)], HTTPFailure> {
        guard !hrefs.isEmpty else { return .success([]) }
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>\
            \(hrefs.map { "<D:href>\(Self.escaped($0))</D:href>" }.joined())</C:calendar-multiget>
            """
        switch await multistatus("REPORT", url, body: body, depth: "1", maximumBytes: Self.maximumReportBytes) {
        case .failure(let failure): return .failure(failure)
        case .success(let answer):
            return .success(answer.responses.compactMap { response in
                guard let href = event(response.href), let text = response.calendarData,
                      (response.etag?.utf8.count ?? 0) <= Self.maximumETagBytes else { return nil }
                return (href, response.etag, text)
            })
        }
    }

    /// Writes `text` as `name` in the collection: only if it is still at `etag`, or, with no
    /// ETag, only if nothing is there yet. Returns the new ETag when the server gives one.
    package func put(_ name: String, text: String, ifMatch etag: String?) async -> Result<String?, WriteFailure> {
        let condition = etag.map { ("If-Match", $0) } ?? ("If-None-Match", "*")
        switch await send("PUT", url + name, body: text, headers: [condition], contentType: "text/calendar; charset=utf-8",
                          maximumBytes: Self.maximumSmallBytes) {
        case .failure(let failure): return .failure(.failed(failure.description))
        case .success(let response):
            if response.status == 412 { return .failure(.conflict) }
            guard response.succeeded else { return .failure(.failed(Self.unexpected(response, "PUT").description)) }
            return .success(response.etag)
        }
    }

    /// Removes `href`, only if it is still at `etag`; one already gone is no failure.
    package func delete(_ href: String, ifMatch etag: String?) async -> Result<Void, WriteFailure> {
        guard let path = event(href) else {
            return .failure(.failed("\(href.prefix(200)) is not an event of \(url); nothing was sent"))
        }
        switch await send("DELETE", origin + path, body: nil, headers: etag.map { [("If-Match", $0)] } ?? [],
                          maximumBytes: Self.maximumSmallBytes) {
        case .failure(let failure): return .failure(.failed(failure.description))
        case .success(let response):
            if response.status == 412 { return .failure(.conflict) }
            guard response.succeeded || response.status == 404 else { return .failure(.failed(Self.unexpected(response, "DELETE").description)) }
            return .success(())
        }
    }

    /// The collection's path on its server (`/alice/reveille/`): an event's href is it and its name.
    package var path: String {
        let afterScheme = url.firstIndex(of: ":").map { url.index($0, offsetBy: 3, limitedBy: url.endIndex) ?? url.endIndex } ?? url.startIndex
        return String(url[(url[afterScheme...].firstIndex(of: "/") ?? url.endIndex)...])
    }

    /// The URL of the folder the collection is in.
    private var parent: String {
        let path = url.dropLast()
        return String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// The event's name in the collection for alarm `id`.
    package static func name(for id: UUID) -> String { id.uuidString.lowercased() + ".ics" }

    // MARK: Requests

    private func send(_ method: String, _ url: String, body: String?, headers: [(String, String)] = [], depth: String? = nil,
                      contentType: String = "application/xml; charset=utf-8", maximumBytes: Int) async -> Result<HTTPResponse, HTTPFailure> {
        var all = [("Authorization", authorization)] + headers
        if let depth { all.append(("Depth", depth)) }
        let response = await http.send(HTTPRequest(method: method, url: url, headers: all, body: body, contentType: contentType),
                                       maximumBytes: maximumBytes)
        if case .success(let answer) = response, answer.status == 401 {
            return .failure(HTTPFailure(description: "the server refused the user name or password (401)"))
        }
        return response
    }

    private func multistatus(_ method: String, _ url: String, body: String, depth: String?, maximumBytes: Int) async -> Result<Multistatus, HTTPFailure> {
        switch await send(method, url, body: body, depth: depth, maximumBytes: maximumBytes) {
        case .failure(let failure): return .failure(failure)
        case .success(let response):
            guard response.status == 207 else { return .failure(Self.unexpected(response, method)) }
            do { return .success(try Multistatus.parse(response.text)) } catch { return .failure(error) }
        }
    }

    /// The URL without its path: scheme, host and port.
    private var origin: String { String(url.dropLast(path.count)) }

    /// An href from the server (an absolute path, a whole URL, or a name relative to the
    /// collection) as the path of an event in this collection; `nil` for anything else: another
    /// origin, another folder, a name that a server would read as `.` or `..` or as more than one
    /// segment. The one door an href passes before it is fetched, kept or sent a DELETE.
    package func event(_ href: String) -> String? {
        var path = href
        if href.contains("://") {
            guard href.lowercased().hasPrefix(origin.lowercased() + "/") else { return nil }
            path = String(href.dropFirst(origin.count))
        } else if !href.hasPrefix("/") {
            path = self.path + href
        }
        guard path.hasPrefix(self.path) else { return nil }
        let name = path.dropFirst(self.path.count)
        let lowered = name.lowercased()
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameBytes, name != ".", name != "..", !name.contains(where: { "/\\?#".contains($0) }),
              !lowered.contains("%2e"), !lowered.contains("%2f"), !lowered.contains("%5c") else { return nil }
        return path
    }

    private static func unexpected(_ response: HTTPResponse, _ method: String) -> HTTPFailure {
        HTTPFailure(description: "the server answered \(method) with \(response.status)")
    }

    /// Text for an XML element.
    private static func escaped(_ text: String) -> String {
        text.reduce(into: "") { escaped, character in
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
    }
}
