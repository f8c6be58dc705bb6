#!/usr/bin/env python3
import aws_cdk as cdk

from stacks.serverless_stack import ServerlessStack

app = cdk.App()
ServerlessStack(app, "Serverless")
app.synth()
