/// One D-Bus method as introspection declares it: its name, its arguments' names and D-Bus types,
/// and what a reader of the XML is told of it. Each exported interface keeps its methods in one
/// table of these (the agent's `AgentMethod.table`, the panel's, the player's, the wake helper's),
/// and its introspection XML and its dispatch both come from that table.
package struct BusMethod: Sendable, Equatable {
    /// An argument, a signal's value or a property: its name and D-Bus type (`s`, `u`, `a{sv}`, ...).
    package struct Argument: Sendable, Equatable {
        package let name: String
        package let type: String

        package init(_ name: String, _ type: String) {
            self.name = name
            self.type = type
        }
    }

    package let name: String
    package let inputs: [Argument]
    package let outputs: [Argument]
    /// What the XML says of the method, in lines (none: no comment).
    package let comment: String?

    package init(_ name: String, in inputs: [Argument] = [], out outputs: [Argument] = [], comment: String? = nil) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.comment = comment
    }

    /// The D-Bus signature of what a caller sends (`GDBus` checks every call against it).
    package var inputSignature: String { inputs.map(\.type).joined() }
}

/// A signal as introspection declares it.
package struct BusSignal: Sendable, Equatable {
    package let name: String
    package let arguments: [BusMethod.Argument]
    package let comment: String?

    package init(_ name: String, _ arguments: [BusMethod.Argument] = [], comment: String? = nil) {
        self.name = name
        self.arguments = arguments
        self.comment = comment
    }
}

/// A read-only property as introspection declares it: its name and D-Bus type.
package typealias BusProperty = BusMethod.Argument

/// A D-Bus interface as its introspection XML says it, written from the tables it is made of.
package struct BusInterfaceDescription: Sendable, Equatable {
    package let name: String
    package let methods: [BusMethod]
    package let properties: [BusProperty]
    package let signals: [BusSignal]
    /// How each element is written: `compact` puts a method's arguments on its own line.
    package let layout: Layout

    package enum Layout: Sendable, Equatable {
        /// One line per argument, a method without arguments closed at once (the agent's, the wake helper's).
        case expanded
        /// Each method on one line (the panel item's).
        case compact
    }

    package init(name: String, methods: [BusMethod], properties: [BusProperty] = [], signals: [BusSignal] = [],
                 layout: Layout = .expanded) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
        self.layout = layout
    }

    /// The `<interface>` element, each line indented by `indent` spaces; properties, then methods, then signals.
    package func xml(indent: Int) -> String {
        let outer = String(repeating: " ", count: indent), inner = outer + "  "
        var lines = ["\(outer)<interface name=\"\(name)\">"]
        lines += properties.map { "\(inner)<property name=\"\($0.name)\" type=\"\($0.type)\" access=\"read\"/>" }
        for method in methods {
            let arguments = method.inputs.map { ($0, "in") } + method.outputs.map { ($0, "out") }
            lines += element("method", method.name, comment: method.comment, indent: inner, arguments.map { argument, direction in
                "<arg name=\"\(argument.name)\" type=\"\(argument.type)\" direction=\"\(direction)\"/>"
            })
        }
        for signal in signals {
            lines += element("signal", signal.name, comment: signal.comment, indent: inner, signal.arguments.map {
                "<arg name=\"\($0.name)\" type=\"\($0.type)\"/>"
            })
        }
        lines.append("\(outer)</interface>")
        return lines.joined(separator: "\n")
    }

    /// A method or signal with its `arguments` (each an `<arg>` element), after its comment.
    private func element(_ tag: String, _ name: String, comment: String?, indent: String, _ arguments: [String]) -> [String] {
        let open = "\(indent)<\(tag) name=\"\(name)\""
        let lines: [String] = if arguments.isEmpty {
            ["\(open)/>"]
        } else if layout == .compact {
            ["\(open)>\(arguments.joined())</\(tag)>"]
        } else {
            ["\(open)>"] + arguments.map { "\(indent)  \($0)" } + ["\(indent)</\(tag)>"]
        }
        return Self.comment(comment, indent: indent) + lines
    }

    /// `<!-- text -->`, its later lines lined up under the first.
    private static func comment(_ text: String?, indent: String) -> [String] {
        guard let text else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.enumerated().map { index, line in
            (index == 0 ? "\(indent)<!-- " : "\(indent)     ") + line + (index == lines.count - 1 ? " -->" : "")
        }
    }

    /// A `<node>` holding `interfaces`, as GDBus reads it.
    package static func node(_ interfaces: [BusInterfaceDescription]) -> String {
        (["<node>"] + interfaces.map { $0.xml(indent: 2) } + ["</node>"]).joined(separator: "\n")
    }
}

/// The typed methods of one interface, each case one entry: a handler switches over the cases,
/// and the name a call arrives with is read back into its case once, here.
package protocol BusMethodSet: CaseIterable, Sendable, Equatable {
    /// The method's name and arguments.
    var method: BusMethod { get }
    /// Whether a call of it answers a ringing alarm: the gate never holds it behind what other
    /// clients used (`ExportGate.export(answering:)`). None does unless the set says so.
    var answersAlarm: Bool { get }
}

extension BusMethodSet {
    /// The case a call's method `name` is, or `nil` for a method the interface does not have.
    package init?(named name: String) {
        guard let found = Self.allCases.first(where: { $0.method.name == name }) else { return nil }
        self = found
    }

    /// The method's name on the bus.
    package var name: String { method.name }

    package var answersAlarm: Bool { false }

    /// Every method, in the table's order.
    package static var methods: [BusMethod] { allCases.map(\.method) }

    /// The names of the methods that answer a ringing alarm, for the gate.
    package static var answering: Set<String> { Set(allCases.filter(\.answersAlarm).map(\.name)) }
}
