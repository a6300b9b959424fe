import FoundationEssentials

/// One iCalendar property as Swift holds it: its name (upper case), its parameters (names upper
/// case, values unquoted) and its value as text, TEXT values unescaped.
package struct ICalProperty: Hashable, Sendable {
    package var name: String
    package var parameters: [String: String]
    package var value: String

    package init(_ name: String, _ value: String, parameters: [String: String] = [:]) {
        self.name = name.uppercased()
        self.value = value
        self.parameters = parameters
    }
}

/// One iCalendar component (VCALENDAR, VEVENT, VTODO, VALARM, VTIMEZONE…) with its properties
/// in order and the components inside it: a plain value, no C pointer.
package struct ICalComponent: Hashable, Sendable {
    package var name: String
    package var properties: [ICalProperty]
    package var components: [ICalComponent]

    package init(_ name: String, properties: [ICalProperty] = [], components: [ICalComponent] = []) {
        self.name = name.uppercased()
        self.properties = properties
        self.components = components
    }

    /// The first property named `name`.
    package func property(_ name: String) -> ICalProperty? {
        properties.first { $0.name == name }
    }

    /// The value of the first property named `name`.
    package func value(_ name: String) -> String? {
        property(name)?.value
    }

    /// The components inside this one named `name`.
    package func components(named name: String) -> [ICalComponent] {
        components.filter { $0.name == name }
    }

    /// Appends a property, unless `value` is `nil`.
    package mutating func add(_ name: String, _ value: String?, parameters: [String: String] = [:]) {
        guard let value else { return }
        properties.append(ICalProperty(name, value, parameters: parameters))
    }
}

/// The bounds an iCalendar text is held to before libical sees it: libical builds a tree of
/// several hundred bytes per property and frees it recursively, so size, line count, component
/// count and nesting are checked on the bytes first (README, "Limits").
package struct ICalLimits: Hashable, Sendable {
    /// The text's size in bytes.
    package var bytes: Int
    /// Content lines (physical lines, folded ones counted each).
    package var lines: Int
    /// Components (BEGIN lines) in all.
    package var components: Int
    /// Components nested inside each other (VCALENDAR > VEVENT > VALARM is 3).
    package var depth: Int
    /// VALARMs inside one event or to-do.
    package var alarmsPerComponent: Int

    package init(bytes: Int, lines: Int, components: Int, depth: Int, alarmsPerComponent: Int) {
        self.bytes = bytes
        self.lines = lines
        self.components = components
        self.depth = depth
        self.alarmsPerComponent = alarmsPerComponent
    }

    /// A file given to `reveille import`: room for an export of 10,000 alarms.
    package static let file = ICalLimits(bytes: 16 << 20, lines: 400_000, components: 40_000, depth: 8, alarmsPerComponent: 64)
    /// One calendar object resource on a CalDAV server: one alarm's event and its snoozes.
    package static let resource = ICalLimits(bytes: 256 << 10, lines: 4_000, components: 200, depth: 8, alarmsPerComponent: 64)
}

/// Why an iCalendar text was refused: what was wrong, and what is accepted.
package struct ICalError: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

extension ICalLimits {
    /// Checks `text` against the bounds in one pass over its bytes; throws naming the first one
    /// passed and the bound.
    package func check(_ text: String) throws(ICalError) {
        let utf8 = text.utf8
        guard utf8.count <= bytes else {
            throw ICalError("the calendar is \(utf8.count) bytes; at most \(bytes) are accepted")
        }
        var lineCount = 1, componentCount = 0, nesting = 0, deepest = 0
        var prefix: [UInt8] = []
        func endLine() throws(ICalError) {
            // Only a BEGIN or END at the start of a line counts; `BEGIN` inside a value does not.
            let line = String(decoding: prefix, as: UTF8.self).uppercased()
            if line.hasPrefix("BEGIN:") {
                componentCount += 1
                nesting += 1
                deepest = max(deepest, nesting)
                guard componentCount <= components else {
                    throw ICalError("the calendar has more than \(components) components; at most \(components) are accepted")
                }
                guard deepest <= depth else {
                    throw ICalError("the calendar nests components more than \(depth) deep; at most \(depth) are accepted")
                }
            } else if line.hasPrefix("END:") {
                nesting = max(0, nesting - 1)
            }
            prefix.removeAll(keepingCapacity: true)
        }
        for byte in utf8 {
            if byte == UInt8(ascii: "\n") {
                try endLine()
                lineCount += 1
                guard lineCount <= lines else {
                    throw ICalError("the calendar has more than \(lines) lines; at most \(lines) are accepted")
                }
                continue
            }
            if prefix.count < 6, byte != UInt8(ascii: "\r") { prefix.append(byte) }
        }
        try endLine()
    }
}

extension ICalLimits {
    /// Checks that no event or to-do in `components` holds more than `alarmsPerComponent` VALARMs.
    package func checkAlarms(_ components: [ICalComponent]) throws(ICalError) {
        for component in components {
            let alarms = component.components(named: "VALARM").count
            guard alarms <= alarmsPerComponent else {
                throw ICalError("\(component.name) \(component.value("UID")?.prefix(80) ?? "") has \(alarms) VALARMs; at most \(alarmsPerComponent) are accepted in one")
            }
            try checkAlarms(component.components)
        }
    }
}

extension ICalComponent {
    /// The component as iCalendar text (RFC 5545): CRLF line ends, lines folded at 75 bytes
    /// without splitting a character, TEXT escaped, parameter values quoted where they must be.
    package var text: String {
        var lines: [String] = []
        appendLines(to: &lines)
        return lines.map(Self.folded).joined()
    }

    private func appendLines(to lines: inout [String]) {
        lines.append("BEGIN:\(name)")
        for property in properties {
            var line = property.name
            for (name, value) in property.parameters.sorted(by: { $0.key < $1.key }) {
                let quoted = value.contains(where: { ":;,".contains($0) }) ? "\"\(value.filter { $0 != "\"" })\"" : value
                line += ";\(name)=\(quoted)"
            }
            line += ":" + (Self.structuredNames.contains(property.name) ? property.value : Self.escaped(property.value))
            lines.append(line)
        }
        for component in components { component.appendLines(to: &lines) }
        lines.append("END:\(name)")
    }

    /// Properties whose value is not TEXT: written as they are (their `;` and `,` are syntax).
    static let structuredNames: Set<String> = [
        "VERSION", "DTSTART", "DTEND", "DUE", "DTSTAMP", "CREATED", "LAST-MODIFIED", "RRULE", "EXDATE", "RDATE",
        "TRIGGER", "DURATION", "REPEAT", "ACKNOWLEDGED", "SEQUENCE", "TZOFFSETFROM", "TZOFFSETTO", "RECURRENCE-ID",
    ]

    /// RFC 5545 3.3.11: backslash, semicolon, comma and newline escaped.
    static func escaped(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n", "\r\n": result += "\\n"
            case "\r": break
            default: result.append(character)
            }
        }
        return result
    }

    /// One content line, folded after 75 bytes (RFC 5545 3.1) at a character boundary, never
    /// right after white space: readers (libical among them) drop white space at a line's end.
    static func folded(_ line: String) -> String {
        var lines: [[Character]] = [[]]
        var width = 0
        for character in line {
            let size = character.utf8.count
            if width + size > 75 {
                // Carry trailing white space over to the next line, which begins after the fold's space.
                var carried: [Character] = []
                while let last = lines[lines.count - 1].last, last.isWhitespace, lines[lines.count - 1].count > 1 {
                    carried.insert(lines[lines.count - 1].removeLast(), at: 0)
                }
                lines.append(carried)
                width = 1 + carried.reduce(0) { $0 + $1.utf8.count }
            }
            lines[lines.count - 1].append(character)
            width += size
        }
        return lines.map { String($0) }.joined(separator: "\r\n ") + "\r\n"
    }
}
