//! A program's syntax as the evaluator reads it: the part of TypeScript,
//! JavaScript and Python that infrastructure programs (CDK, Pulumi) use to
//! declare clusters and what runs on them. Each language's reader lowers its
//! parser's tree to this; whatever it does not lower is
//! [`ExprKind::Unknown`] or [`Stmt::Other`], and unknown never fires.
//!
//! Every node keeps the byte span it was written at, so findings point into
//! the `.ts` or `.py` source.

use crate::source::Span;

/// One source file of a program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// Top-level statements, in the order written.
    pub body: Vec<Stmt>,
}

/// A name as written, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The name.
    pub text: String,
    /// Where it is written.
    pub span: Span,
}

/// One name an import binds.
#[derive(Clone, Debug, PartialEq)]
pub enum Imported {
    /// `import * as eks from 'aws-cdk-lib/aws-eks'`, `import aws_cdk.aws_eks as eks`,
    /// `from aws_cdk import aws_eks as eks`: the whole module under `local`.
    Namespace {
        /// The name it is bound to.
        local: Name,
    },
    /// `import { Cluster as C } from '…'`, `from … import Cluster as C`:
    /// `name` of the module under `local`.
    Named {
        /// The name in the module.
        name: String,
        /// The name it is bound to here.
        local: Name,
    },
    /// `import eks from '…'` (the default export).
    Default {
        /// The name it is bound to.
        local: Name,
    },
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An import. `from` is the module as written (`aws-cdk-lib/aws-eks`,
    /// `./lib/stack`, `aws_cdk.aws_eks`; Python relative imports keep their
    /// leading dots).
    Import {
        /// The module as written.
        from: String,
        /// What it binds.
        names: Vec<Imported>,
        /// The whole statement.
        span: Span,
    },
    /// `const x = …`, `let x`, `x = …` in Python: a binding of a plain name.
    /// Destructuring lowers to one `Let` per name with a member or index
    /// value where it can, otherwise to `Other`.
    Let {
        /// The name bound.
        name: Name,
        /// Its value; `None` when declared without one.
        value: Option<Expr>,
        /// Whether another file may import it (`export`, Python's module level).
        exported: bool,
        /// The whole statement.
        span: Span,
    },
    /// An assignment to anything but a plain new binding (`this.x = …`,
    /// `self.x = …`, `a.b = …`, `x = …` re-assigning a `let`).
    Assign {
        /// What is assigned to.
        target: Expr,
        /// The value.
        value: Expr,
        /// The whole statement.
        span: Span,
    },
    /// An expression evaluated for its effect (most `new Construct(…)` and
    /// `cluster.addHelmChart(…)` calls).
    Expr(Expr),
    /// A function declaration (`function f(a, b) {…}`, `def f(a, b):`).
    Function(Function),
    /// A class: its base and its members. The constructor is the member
    /// named `constructor` (TypeScript) or `__init__` (Python).
    Class {
        /// The class's name.
        name: Name,
        /// Its base class.
        extends: Option<Expr>,
        /// Its methods, the constructor among them.
        members: Vec<Function>,
        /// Whether another file may import it.
        exported: bool,
        /// The whole statement.
        span: Span,
    },
    /// `return …`.
    Return {
        /// What is returned.
        value: Option<Expr>,
        /// The whole statement.
        span: Span,
    },
    /// `if`/`else` (Python `elif` lowers to a nested `If` in `otherwise`).
    If {
        /// The condition.
        test: Expr,
        /// What runs when it holds.
        then: Vec<Stmt>,
        /// What runs otherwise.
        otherwise: Vec<Stmt>,
        /// The whole statement.
        span: Span,
    },
    /// `for (const x of xs)`, `for x in xs:`, `xs.forEach(x => …)` stays a call.
    For {
        /// The name each item is bound to.
        binding: Name,
        /// What is iterated over.
        iter: Expr,
        /// What runs for each item.
        body: Vec<Stmt>,
        /// The whole statement.
        span: Span,
    },
    /// A block (`{ … }`, `with`, `try` bodies): its statements run in order.
    Block {
        /// Its statements.
        body: Vec<Stmt>,
        /// The whole statement.
        span: Span,
    },
    /// Anything else (`while`, `switch`, `throw`, type declarations): the
    /// evaluator treats what it could bind as unknown.
    Other {
        /// The whole statement.
        span: Span,
    },
}

/// A function, method, arrow function or lambda.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Empty for an anonymous function.
    pub name: Option<Name>,
    /// Its parameters, in order.
    pub params: Vec<Param>,
    /// An arrow function or lambda with an expression body lowers to one
    /// `Return`.
    pub body: Vec<Stmt>,
    /// The whole function.
    pub span: Span,
}

/// A parameter. TypeScript constructor parameter properties and Python
/// `self` are kept as written; the evaluator knows `self` comes first.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's name.
    pub name: Name,
    /// Its default value.
    pub default: Option<Expr>,
    /// `...rest`, `*args`.
    pub rest: bool,
    /// Python `**kwargs`.
    pub keywords: bool,
}

/// An expression with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of [`Expr`].
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A string literal, its value unescaped.
    Str(String),
    /// A number as written (`3`, `0.5`, `1e3`).
    Num(String),
    /// `true`, `false`, `True`, `False`.
    Bool(bool),
    /// `null`, `None`.
    Null,
    /// `undefined`.
    Undefined,
    /// A template string or f-string: text and expressions in order.
    Template(Vec<TemplatePart>),
    /// A plain name.
    Name(String),
    /// `this` (TypeScript) or `self` (Python, lowered from the name).
    This,
    /// `object.name`, `object?.name`.
    Member {
        /// The object.
        object: Box<Expr>,
        /// The member's name.
        name: Name,
    },
    /// `object[index]`.
    Index {
        /// The object.
        object: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// A call `callee(args)`.
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// Its arguments.
        args: Vec<Arg>,
    },
    /// `new callee(args)`. Python has no `new`: a call stays a `Call`, and
    /// the evaluator tells classes from functions by what the name is bound to.
    New {
        /// The class.
        callee: Box<Expr>,
        /// Its arguments.
        args: Vec<Arg>,
    },
    /// An object literal or Python dict.
    Object(Vec<Prop>),
    /// An array literal or Python list or tuple.
    Array(Vec<Item>),
    /// A function value (arrow function, function expression, lambda).
    Function(Box<Function>),
    /// `a op b`: `+ - * / % == != === !== < <= > >= && || ??` and Python's
    /// `and`, `or`, `in` lowered to the same spelling (`&&`, `||`, `in`).
    Binary {
        /// The operator.
        op: String,
        /// Its left operand.
        left: Box<Expr>,
        /// Its right operand.
        right: Box<Expr>,
    },
    /// `!a`, `-a`, `not a` (as `!`), `typeof a`.
    Unary {
        /// The operator.
        op: String,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// `test ? then : otherwise`, Python `then if test else otherwise`.
    Conditional {
        /// The condition.
        test: Box<Expr>,
        /// The value when it holds.
        then: Box<Expr>,
        /// The value otherwise.
        otherwise: Box<Expr>,
    },
    /// Anything else (a comprehension, `await`, a regex). Type assertions
    /// (`x as T`, `x!`, `<T>x`, `satisfies`) and parentheses are not
    /// nodes: they lower to the expression inside.
    Unknown,
}

/// A part of a template string.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplatePart {
    /// Text as written, unescaped.
    Text(String),
    /// An interpolated expression.
    Expr(Expr),
}

/// A call argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A plain argument.
    Positional(Expr),
    /// `...xs`, `*xs`.
    Spread(Expr),
    /// Python `name=value`, the name as written (snake case); the CDK and
    /// Pulumi readers map keyword names to the construct's props.
    Keyword(Name, Expr),
    /// Python `**props`.
    KeywordSpread(Expr),
}

/// An entry of an object literal or dict.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    /// `key: value`, `'key': value`, shorthand `key` (value is the name),
    /// Python `"key": value`. `key` is `None` when computed and not a literal.
    KeyValue {
        /// The key, when it is a literal.
        key: Option<Name>,
        /// The value.
        value: Expr,
    },
    /// `...other`, `**other`.
    Spread(Expr),
}

/// An element of an array literal or list.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// An element.
    Expr(Expr),
    /// `...xs`, `*xs`.
    Spread(Expr),
}
