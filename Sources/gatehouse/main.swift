import Foundation
import GatehouseServer

exit(Command.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
