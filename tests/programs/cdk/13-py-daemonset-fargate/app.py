#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.logging_stack import LoggingStack

app = cdk.App()
LoggingStack(app, "Logging")
app.synth()
