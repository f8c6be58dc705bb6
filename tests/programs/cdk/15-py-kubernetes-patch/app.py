#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.patched_stack import PatchedStack

app = cdk.App()
PatchedStack(app, "Patched")
app.synth()
