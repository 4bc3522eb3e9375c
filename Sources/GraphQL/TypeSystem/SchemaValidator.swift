/// The type system's validation rules (spec §3: "Type Validation" of each kind), run
/// on a built schema. Messages follow graphql-js's validateSchema.
struct SchemaValidator {
    let schema: GraphQLSchema
    let locate: SchemaLocator
    private var errors: [GraphQLError] = []

    init(schema: GraphQLSchema, locate: SchemaLocator) {
        self.schema = schema
        self.locate = locate
    }

    private mutating func report(_ message: String, at coordinate: String) {
        errors.append(GraphQLError(message, locations: locate.location(coordinate)))
    }

    mutating func validate() -> [GraphQLError] {
        for directive in schema.directives { validateDirective(directive) }
        var checkedInputCycles: Set<String> = []
        for type in schema.types where !Prelude.introspectionTypeNames.contains(type.name) {
            switch type {
            case .object(let object):
                validateFields(of: object, kind: "Type")
                validateInterfaces(of: object)
            case .interface(let interface):
                validateFields(of: interface, kind: "Interface")
                validateInterfaces(of: interface)
            case .union(let union):
                validateUnion(union)
            case .enumType(let enumType):
                if enumType.values.isEmpty {
                    report("Enum type \(enumType.name) must define one or more values.", at: enumType.name)
                }
            case .inputObject(let input):
                validateInputObject(input)
                validateInputCycles(from: input, checked: &checkedInputCycles)
            case .scalar:
                break
            }
        }
        return errors
    }

    // MARK: Directives

    private mutating func validateDirective(_ directive: DirectiveDef) {
        if directive.locations.isEmpty {
            report("Directive @\(directive.name) must include 1 or more locations.", at: "@\(directive.name)")
        }
        for argument in directive.arguments {
            let coordinate = "@\(directive.name)(\(argument.name):)"
            if schema.namedType(argument.type)?.isInputType != true {
                report("The type of @\(directive.name)(\(argument.name):) must be Input Type but got: \(argument.type).", at: coordinate)
            }
            if argument.isRequired && argument.deprecationReason != nil {
                report("Required argument @\(directive.name)(\(argument.name):) cannot be deprecated.", at: coordinate)
            }
        }
    }

    // MARK: Objects and interfaces

    private mutating func validateFields(of type: ObjectType, kind: String) {
        if type.fields.isEmpty {
            report("Type \(type.name) must define one or more fields.", at: type.name)
        }
        for field in type.fields {
            let coordinate = "\(type.name).\(field.name)"
            if schema.namedType(field.type)?.isOutputType != true {
                report("The type of \(type.name).\(field.name) must be Output Type but got: \(field.type).", at: coordinate)
            }
            for argument in field.arguments {
                let argumentCoordinate = "\(type.name).\(field.name)(\(argument.name):)"
                if schema.namedType(argument.type)?.isInputType != true {
                    report("The type of \(type.name).\(field.name)(\(argument.name):) must be Input Type but got: \(argument.type).", at: argumentCoordinate)
                }
                if argument.isRequired && argument.deprecationReason != nil {
                    report("Required argument \(type.name).\(field.name)(\(argument.name):) cannot be deprecated.", at: argumentCoordinate)
                }
            }
        }
    }

    private mutating func validateInterfaces(of type: ObjectType) {
        var seen: Set<String> = []
        for interfaceName in type.interfaces {
            guard case .interface(let interface)? = schema.type(interfaceName) else {
                let kind = schema.type(interfaceName).map { describe($0) } ?? interfaceName
                report("Type \(type.name) must only implement Interface types, it cannot implement \(kind).", at: type.name)
                continue
            }
            if interface === type {
                report("Type \(type.name) cannot implement itself because it would create a circular reference.", at: type.name)
                continue
            }
            if seen.contains(interfaceName) {
                report("Type \(type.name) can only implement \(interfaceName) once.", at: type.name)
                continue
            }
            seen.insert(interfaceName)
            validateTypeImplementsAncestors(type, interface)
            validateTypeImplementsInterface(type, interface)
        }
    }

    /// An implementation must also declare every interface its interfaces implement.
    private mutating func validateTypeImplementsAncestors(_ type: ObjectType, _ interface: InterfaceType) {
        for transitive in interface.interfaces where !type.interfaces.contains(transitive) {
            if transitive == type.name {
                report("Type \(type.name) cannot implement \(interface.name) because it would create a circular reference.", at: type.name)
            } else {
                report("Type \(type.name) must implement \(transitive) because it is implemented by \(interface.name).", at: type.name)
            }
        }
    }

    private mutating func validateTypeImplementsInterface(_ type: ObjectType, _ interface: InterfaceType) {
        for interfaceField in interface.fields {
            let fieldName = interfaceField.name
            guard let typeField = type.field(fieldName) else {
                report("Interface field \(interface.name).\(fieldName) expected but \(type.name) does not provide it.", at: type.name)
                continue
            }
            // Covariant result type (spec IsValidImplementationFieldType).
            if !isSubType(typeField.type, of: interfaceField.type) {
                report("Interface field \(interface.name).\(fieldName) expects type \(interfaceField.type) but \(type.name).\(fieldName) is type \(typeField.type).", at: "\(type.name).\(fieldName)")
            }
            for interfaceArgument in interfaceField.arguments {
                guard let typeArgument = typeField.argument(interfaceArgument.name) else {
                    report("Interface field argument \(interface.name).\(fieldName)(\(interfaceArgument.name):) expected but \(type.name).\(fieldName) does not provide it.", at: "\(type.name).\(fieldName)")
                    continue
                }
                // Arguments are invariant.
                if typeArgument.type != interfaceArgument.type {
                    report("Interface field argument \(interface.name).\(fieldName)(\(interfaceArgument.name):) expects type \(interfaceArgument.type) but \(type.name).\(fieldName)(\(typeArgument.name):) is type \(typeArgument.type).", at: "\(type.name).\(fieldName)(\(typeArgument.name):)")
                }
            }
            for typeArgument in typeField.arguments
            where typeArgument.isRequired && interfaceField.argument(typeArgument.name) == nil {
                report("Object field \(type.name).\(fieldName) includes required argument \(typeArgument.name) that is missing from the Interface field \(interface.name).\(fieldName).", at: "\(type.name).\(fieldName)(\(typeArgument.name):)")
            }
        }
    }

    /// Spec IsValidImplementationFieldType / graphql-js isTypeSubTypeOf.
    private func isSubType(_ maybeSub: TypeRef, of superType: TypeRef) -> Bool {
        if maybeSub == superType { return true }
        if case .nonNull(let superInner) = superType {
            if case .nonNull(let subInner) = maybeSub { return isSubType(subInner, of: superInner) }
            return false
        }
        if case .nonNull(let subInner) = maybeSub { return isSubType(subInner, of: superType) }
        if case .list(let superInner) = superType {
            if case .list(let subInner) = maybeSub { return isSubType(subInner, of: superInner) }
            return false
        }
        if case .list = maybeSub { return false }
        guard let superNamed = schema.type(superType.namedType), superNamed.isAbstract,
            let subNamed = schema.type(maybeSub.namedType)
        else { return false }
        switch subNamed {
        case .object, .interface: return schema.isSubType(superNamed.name, subNamed.name)
        default: return false
        }
    }

    // MARK: Unions and input objects

    private mutating func validateUnion(_ union: UnionType) {
        if union.types.isEmpty {
            report("Union type \(union.name) must define one or more member types.", at: union.name)
        }
        var seen: Set<String> = []
        for member in union.types {
            if seen.contains(member) {
                report("Union type \(union.name) can only include type \(member) once.", at: union.name)
                continue
            }
            seen.insert(member)
            guard case .object? = schema.type(member) else {
                let kind = schema.type(member).map { describe($0) } ?? member
                report("Union type \(union.name) can only include Object types, it cannot include \(kind).", at: union.name)
                continue
            }
        }
    }

    private mutating func validateInputObject(_ input: InputObjectType) {
        if input.fields.isEmpty {
            report("Input Object type \(input.name) must define one or more fields.", at: input.name)
        }
        for field in input.fields {
            let coordinate = "\(input.name).\(field.name)"
            if schema.namedType(field.type)?.isInputType != true {
                report("The type of \(input.name).\(field.name) must be Input Type but got: \(field.type).", at: coordinate)
            }
            if field.isRequired && field.deprecationReason != nil {
                report("Required input field \(input.name).\(field.name) cannot be deprecated.", at: coordinate)
            }
            if input.isOneOf {
                if field.type.isNonNull {
                    report("OneOf input field \(input.name).\(field.name) must be nullable.", at: coordinate)
                }
                if field.defaultValue != nil {
                    report("OneOf input field \(input.name).\(field.name) cannot have a default value.", at: coordinate)
                }
            }
        }
    }

    /// An input object may not reach itself through non-null, non-list fields: no
    /// finite value could be written (spec §3.10 Input Objects, circular references).
    private mutating func validateInputCycles(from start: InputObjectType, checked: inout Set<String>) {
        var path: [(type: String, field: String)] = []
        var onPath: [String: Int] = [:]
        func visit(_ input: InputObjectType, into validator: inout SchemaValidator, checked: inout Set<String>) {
            if checked.contains(input.name) { return }
            checked.insert(input.name)
            onPath[input.name] = path.count
            for field in input.fields {
                guard case .nonNull(.named(let inner)) = field.type,
                    case .inputObject(let next)? = validator.schema.type(inner)
                else { continue }
                path.append((input.name, field.name))
                if let cycleStart = onPath[next.name] {
                    let names = path[cycleStart...].map(\.field).joined(separator: ".")
                    validator.report("Cannot reference Input Object \"\(next.name)\" within itself through a series of non-null fields: \"\(names)\".", at: "\(next.name)")
                } else {
                    visit(next, into: &validator, checked: &checked)
                }
                path.removeLast()
            }
            onPath[input.name] = nil
        }
        visit(start, into: &self, checked: &checked)
    }

    private func describe(_ type: NamedType) -> String { type.name }
}
