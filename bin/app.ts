import { createApp } from '../lib/app.ts';

/** `npx cdk deploy [-c stage=prod] [-c checkoutBase=https://pay.example.com/checkout]` (see README). */
createApp();
