import Foundation
import SweepCLI
import SweepWorker

// Before anything else, while this is the only thread: the decode worker service forks.
DecodeWorker.startAtLaunch()
exit(SweepCommand.run(Array(CommandLine.arguments.dropFirst())))
